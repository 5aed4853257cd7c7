// A container image reference as Docker reads one (`pytorch/pytorch:2.5.1-…`,
// `nvcr.io/nvidia/pytorch:24.10-py3`, `ghcr.io/lab/img@sha256:…`): which registry serves it,
// under which repository, at which tag or digest. Pure; table-tested.

export interface ImageRef {
  /** As given, trimmed. */
  text: string;
  /** `docker.io` for Docker Hub; otherwise the host (with its port) the name starts with. */
  registry: string;
  /** `library/ubuntu` for Docker Hub's official images. */
  repository: string;
  /** A tag (`latest` when none is given) or a digest (`sha256:…`). */
  reference: string;
  /** Whether `reference` is a digest. */
  isDigest: boolean;
}

const DOCKER_HUB = 'docker.io';
// docker/distribution reference grammar, simplified to what a registry path may hold.
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-f0-9]{32,}$/;

/** The parts of an image name, or what is wrong with it (one line, with the fix). */
export function parseImageRef(raw: string): ImageRef | { problem: string } {
  const text = raw.trim();
  if (text === '') return { problem: 'the image name is empty' };
  if (/\s/.test(text)) return { problem: `image "${text}" has a space in it` };
  let rest = text;
  let reference = 'latest';
  let isDigest = false;
  const at = rest.indexOf('@');
  if (at >= 0) {
    reference = rest.slice(at + 1);
    rest = rest.slice(0, at);
    isDigest = true;
    if (!DIGEST.test(reference))
      return { problem: `image "${text}": "${reference}" is not a digest (sha256:<hex>)` };
  }
  // A tag follows the last ':' after the last '/' (a ':' before it is a registry's port).
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > slash) {
    const tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!isDigest) reference = tag;
    if (!TAG.test(tag)) return { problem: `image "${text}": "${tag}" is not a valid tag` };
  }
  const parts = rest.split('/');
  const first = parts[0]!;
  // Docker's rule: the first component is a registry when it has a '.' or a ':' or is
  // `localhost`; otherwise the name is Docker Hub's.
  const hasRegistry =
    parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost');
  const registry = hasRegistry ? first.toLowerCase() : DOCKER_HUB;
  const path = hasRegistry ? parts.slice(1) : parts;
  if (path.length === 0 || path.some((p) => !COMPONENT.test(p)))
    return {
      problem: `image "${text}" is not a valid name: lower-case letters, digits and . _ - between slashes, e.g. pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime`,
    };
  const repository =
    registry === DOCKER_HUB && path.length === 1 ? `library/${path[0]}` : path.join('/');
  return { text, registry, repository, reference, isDigest };
}

/** Whether the registry is this machine (plain http allowed: a test registry, a local one). */
export function isLoopbackRegistry(registry: string): boolean {
  const host = registry.replace(/:\d+$/, '');
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
}

/** The base URL of the registry's HTTP API (Docker Hub's is registry-1.docker.io). */
export function registryBaseUrl(ref: ImageRef): string {
  if (ref.registry === DOCKER_HUB) return 'https://registry-1.docker.io';
  return `${isLoopbackRegistry(ref.registry) ? 'http' : 'https'}://${ref.registry}`;
}
