/**
 * A Tender job file as the importers build it, before it is written as TOML: the tables in
 * the job file's own key names (README "The job file"), plus comments that keep what the
 * job file has no key for (a GPU's alternatives, in order).
 */
export type EnvDraft = string | { secret: true; from_env: string };

export interface JobDraft {
  job: {
    name: string;
    setup?: string;
    run: string;
    workspace?: { workdir: string };
    env: Record<string, EnvDraft>;
    constraints: string[];
    ports: (number | string)[];
    distributed?: boolean;
    stop?: 'all' | 'rank0';
  };
  pool: {
    provider?: string | string[];
    count?: number;
    gpu?: string;
    gpu_count?: number;
    min_vram_gb?: number;
    max_price?: number;
    image?: string;
    disk_gb?: number;
    region?: string;
    interruptible?: boolean;
  };
  policy: {
    max_duration?: string;
    idle_timeout?: string;
    gpu_idle?: { below: number; for: string; then: 'stop' };
  };
  recovery?: { max_restarts: number; on: string[] };
  /** Comment lines written under `[pool]`. */
  poolNotes: string[];
}

export function emptyDraft(name: string): JobDraft {
  return {
    job: { name, run: '', env: {}, constraints: [], ports: [] },
    pool: {},
    policy: {},
    poolNotes: [],
  };
}
