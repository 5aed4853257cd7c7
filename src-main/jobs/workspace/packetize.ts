// Regroups a push's tar stream into whole SSH packets before it meets the channel. ssh2
// sends every write as packets of its own (each encrypted, padded with fresh random bytes
// and written to the socket on its own), so the three small writes of a small file (header,
// content, padding) cost three packets and three socket writes where a third of one
// would do. A first push of 5,000 small files made ~15,000 packets that way; regrouped,
// ~1,600. Large chunks pass through as slices, not copies.

/** OpenSSH's largest channel packet payload (its `CHAN_SES_PACKET_DEFAULT`): ssh2 cuts
 *  every write into pieces of at most this. */
export const SSH_PACKET_BYTES = 32 * 1024;

/**
 * The bytes of `source`, unchanged and in order, as chunks whose length is a multiple of
 * `size` (at least `size`), except the last. Holds back less than `size` bytes at a time.
 */
export async function* packetized(
  source: AsyncIterable<Buffer>,
  size = SSH_PACKET_BYTES,
): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  for await (const chunk of source) {
    const total = heldBytes + chunk.length;
    if (total < size) {
      if (chunk.length > 0) held.push(chunk);
      heldBytes = total;
      continue;
    }
    const cut = total - (total % size); // bytes that go out now, `size` or more
    let from = 0; // how much of `chunk` has gone out
    if (heldBytes > 0) {
      // The held bytes and the head of this chunk make one full packet.
      from = size - heldBytes;
      held.push(chunk.subarray(0, from));
      yield Buffer.concat(held, size);
    }
    const end = cut - heldBytes;
    if (end > from) yield chunk.subarray(from, end);
    held = end < chunk.length ? [chunk.subarray(end)] : [];
    heldBytes = chunk.length - end;
  }
  if (heldBytes > 0) yield held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
}
