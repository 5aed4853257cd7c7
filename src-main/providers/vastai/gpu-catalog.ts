// The GPU names Vast.ai's offers carry (`gpu_name`), as Vast spells them. Vast's search
// filter compares names exactly, so a family name a person types (`A100`, `H100`, `4090`,
// `rtx 4090`) is expanded to the variants it means before the query is sent.
import { selectAskedGpus } from '../gpu-names';

/** Vast.ai `gpu_name` values (its GPU list, as the search API names them). A name missing
 *  here still works typed exactly: it is sent as written. */
export const VAST_GPUS: readonly string[] = [
  'B200',
  'H200',
  'H200 NVL',
  'GH200 SXM',
  'H100 SXM',
  'H100 PCIE',
  'H100 NVL',
  'A100 SXM4',
  'A100 PCIE',
  'A100X',
  'A800 PCIE',
  'A40',
  'A10',
  'L40S',
  'L40',
  'L4',
  'RTX PRO 6000 S',
  'RTX PRO 6000 WS',
  'RTX 6000Ada',
  'RTX 5880Ada',
  'RTX 5000Ada',
  'RTX 4500Ada',
  'RTX 4000Ada',
  'RTX A6000',
  'RTX A5000',
  'RTX A4500',
  'RTX A4000',
  'RTX A2000',
  'Q RTX 8000',
  'Q RTX 6000',
  'Q RTX 4000',
  'RTX 5090',
  'RTX 5080',
  'RTX 5070 Ti',
  'RTX 5070',
  'RTX 5060 Ti',
  'RTX 5060',
  'RTX 4090',
  'RTX 4090D',
  'RTX 4080S',
  'RTX 4080',
  'RTX 4070S Ti',
  'RTX 4070S',
  'RTX 4070 Ti',
  'RTX 4070',
  'RTX 4060 Ti',
  'RTX 4060',
  'RTX 3090 Ti',
  'RTX 3090',
  'RTX 3080 Ti',
  'RTX 3080',
  'RTX 3070 Ti',
  'RTX 3070',
  'RTX 3060 Ti',
  'RTX 3060',
  'RTX 3050',
  'RTX 2080 Ti',
  'RTX 2080S',
  'RTX 2080',
  'RTX 2070S',
  'RTX 2070',
  'RTX 2060S',
  'RTX 2060',
  'GTX 1080 Ti',
  'GTX 1080',
  'GTX 1070 Ti',
  'GTX 1070',
  'GTX 1660 Ti',
  'GTX 1660 S',
  'GTX 1660',
  'Titan V',
  'Titan Xp',
  'Tesla V100',
  'Tesla T4',
  'Tesla P100',
  'Tesla P40',
  'Tesla P4',
  'InstinctMI50',
];

/**
 * The `gpu_name` values to ask Vast.ai for: for each name asked (comma-separated), every
 * catalog name it means (a family: all its variants; an exact variant: that one), or, for a
 * name the catalog does not know, the name as typed (underscores as spaces, as vast.py
 * sends it).
 */
export function vastGpuNames(gpu: string | undefined): string[] {
  if (!gpu) return [];
  const out: string[] = [];
  for (const asked of gpu.split(',')) {
    const typed = asked.replace(/_/g, ' ').replace(/\s+/g, ' ').trim();
    if (typed === '') continue;
    const known = [...selectAskedGpus(typed, VAST_GPUS)];
    for (const name of known.length > 0 ? known : [typed]) if (!out.includes(name)) out.push(name);
  }
  return out;
}
