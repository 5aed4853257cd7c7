// The seeded inventory: what a machine on offer looks like, and the offer object
// `POST /api/v0/bundles/` returns for it. Field names, units and the example values follow
// vast-cli's openapi/yaml/search_offers.yaml; prices are computed the way Vast does: the GPU
// price (`dph_base`) plus the storage the search asked for, at `storage_cost` $/GB/month
// over 720 hours (show_instance.yaml: 10 GB × 0.14933 $/GB/month → diskHour 0.002074).

/** What a test seeds. Everything has a realistic default; price-derived fields are computed. */
export interface MachineSpec {
  id: number;
  machine_id: number;
  host_id: number;
  bundle_id: number;
  gpu_name: string;
  num_gpus: number;
  /** Per GPU, MB. */
  gpu_ram: number;
  gpu_arch: string;
  gpu_frac: number;
  gpu_lanes: number;
  gpu_mem_bw: number;
  gpu_max_power: number;
  gpu_max_temp: number;
  gpu_display_active: boolean;
  bw_nvlink: number;
  compute_cap: number;
  total_flops: number;
  dlperf: number;
  score: number;
  cuda_max_good: number;
  driver_version: string;
  cpu_arch: string;
  cpu_name: string;
  cpu_cores: number;
  cpu_cores_effective: number;
  cpu_ghz: number;
  /** MB. */
  cpu_ram: number;
  has_avx: number;
  mobo_name: string;
  pci_gen: number;
  pcie_bw: number;
  /** GB available on the machine for this offer. */
  disk_space: number;
  disk_bw: number;
  disk_name: string;
  /** Mb/s. */
  inet_down: number;
  inet_up: number;
  inet_down_cost: number;
  inet_up_cost: number;
  direct_port_count: number;
  static_ip: boolean;
  /** "Region, CC": search filters match the two-letter country code. */
  geolocation: string;
  os_version: string;
  /** Seconds the offer stays available. */
  duration: number;
  reliability: number;
  verification: 'verified' | 'unverified' | 'deverified';
  rentable: boolean;
  external: boolean;
  hosting_type: number;
  vms_enabled: boolean;
  /** GPU price, $/hour. */
  dph_base: number;
  /** Storage price, $/GB/month. */
  storage_cost: number;
  min_bid: number;
  credit_discount_max: number;
}

export type OfferSeed = Partial<MachineSpec>;

/** Vast bills storage per GB-month of 30 days. */
export const HOURS_PER_STORAGE_MONTH = 720;

const FIRST_OFFER_ID = 4_810_000;

export function buildSpec(seed: OfferSeed, ordinal: number): MachineSpec {
  const id = seed.id ?? FIRST_OFFER_ID + ordinal;
  const numGpus = seed.num_gpus ?? 1;
  const gpuRam = seed.gpu_ram ?? 24_576;
  return {
    id,
    machine_id: 30_000 + ordinal,
    host_id: 110_000 + ordinal,
    bundle_id: 900_000_000 + ordinal,
    gpu_name: 'RTX 4090',
    num_gpus: numGpus,
    gpu_ram: gpuRam,
    gpu_arch: 'nvidia',
    gpu_frac: 1,
    gpu_lanes: 16,
    gpu_mem_bw: 912.4,
    gpu_max_power: 450,
    gpu_max_temp: 83,
    gpu_display_active: false,
    bw_nvlink: 0,
    compute_cap: 890,
    total_flops: 82.6 * numGpus,
    dlperf: 74.2 * numGpus,
    score: 240.5 * numGpus,
    cuda_max_good: 12.4,
    driver_version: '550.90.07',
    cpu_arch: 'amd64',
    cpu_name: 'AMD EPYC 7B13 64-Core Processor',
    cpu_cores: 128,
    cpu_cores_effective: 16 * numGpus,
    cpu_ghz: 3.5,
    cpu_ram: 128_000,
    has_avx: 1,
    mobo_name: 'H12DSi-N6',
    pci_gen: 4,
    pcie_bw: 24.4,
    disk_space: 512,
    disk_bw: 3_200,
    disk_name: 'Samsung SSD 980 PRO 2TB',
    inet_down: 850,
    inet_up: 780,
    inet_down_cost: 0.0039,
    inet_up_cost: 0.0039,
    direct_port_count: 64,
    static_ip: true,
    geolocation: 'Sweden, SE',
    os_version: '22.04',
    duration: 30 * 24 * 3600,
    reliability: 0.9963,
    verification: 'verified',
    rentable: true,
    external: false,
    hosting_type: 0,
    vms_enabled: false,
    dph_base: 0.4 * numGpus,
    storage_cost: 0.15,
    min_bid: 0.21 * numGpus,
    credit_discount_max: 0.4,
    ...seed,
  };
}

/** $/hour of an instance of `spec` with `diskGb` of storage. */
export function hourlyPrice(spec: MachineSpec, diskGb: number): number {
  return spec.dph_base + storageHourly(spec, diskGb);
}

export function storageHourly(spec: MachineSpec, diskGb: number): number {
  return (diskGb * spec.storage_cost) / HOURS_PER_STORAGE_MONTH;
}

/** The object search returns, priced for `allocatedStorageGb`. */
export function offerView(
  spec: MachineSpec,
  allocatedStorageGb: number,
  isRented: boolean,
  nowMs: number,
): Record<string, unknown> {
  const diskHour = storageHourly(spec, allocatedStorageGb);
  const dphTotal = spec.dph_base + diskHour;
  const pricing = {
    gpuCostPerHour: spec.dph_base,
    diskHour,
    totalHour: dphTotal,
    discountTotalHour: 0,
    discountedTotalPerHour: dphTotal,
  };
  const startS = nowMs / 1000;
  return {
    ...spec,
    ask_contract_id: spec.id,
    bundled_results: null,
    driver_vers: numericDriverVersion(spec.driver_version),
    geolocode: 0,
    gpu_ids: Array.from({ length: spec.num_gpus }, (_, i) => spec.machine_id * 10 + i),
    gpu_total_ram: spec.gpu_ram * spec.num_gpus,
    hostname: null,
    is_bid: false,
    logo: '/static/logos/vastai_small2.png',
    public_ipaddr: '127.0.0.1',
    reliability2: spec.reliability,
    reliability_mult: spec.reliability,
    expected_reliability: spec.reliability,
    rented: isRented,
    start_date: startS,
    end_date: startS + spec.duration,
    vericode: spec.verification === 'verified' ? 1 : 0,
    webpage: null,
    is_vm_deverified: false,
    resource_type: 'gpu',
    cluster_id: null,
    rn: 1,
    dph_total: dphTotal,
    dph_total_adj: dphTotal,
    discount_rate: 0,
    discounted_hourly: 0,
    discounted_dph_total: dphTotal,
    storage_total_cost: diskHour,
    vram_costperhour: dphTotal / ((spec.gpu_ram * spec.num_gpus) / 1024),
    dlperf_per_dphtotal: spec.dlperf / dphTotal,
    flops_per_dphtotal: spec.total_flops / dphTotal,
    search: pricing,
    instance: pricing,
    time_remaining: '',
    time_remaining_isbid: '',
    internet_up_cost_per_tb: spec.inet_up_cost * 1024,
    internet_down_cost_per_tb: spec.inet_down_cost * 1024,
  };
}

/** "535.86.05" → 535086005, the form vast.py sends for `driver_version` filters. */
export function numericDriverVersion(version: string): number {
  const [major = '0', minor = '0', patch = '0'] = version.split('.');
  return Number(major) * 1_000_000 + Number(minor) * 1_000 + Number(patch);
}
