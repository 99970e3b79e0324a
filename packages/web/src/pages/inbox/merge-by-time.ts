// The thread is one timeline built from several lists, each already in time order: the notes and the
// events slot in between the messages and function calls.

/**
 * `items` with `extras` slotted in by time (both in time order). An extra written in the same
 * millisecond as an item goes after it.
 */
export function mergeByTime<T, Extra extends { createdAt: string }>(
  items: T[],
  extras: Extra[],
  timeOf: (item: T) => number,
  wrap: (extra: Extra) => T,
): T[] {
  if (extras.length === 0) return items;
  const out: T[] = [];
  let j = 0;
  for (const item of items) {
    const at = timeOf(item);
    for (; j < extras.length && Date.parse((extras[j] as Extra).createdAt) < at; j++) {
      out.push(wrap(extras[j] as Extra));
    }
    out.push(item);
  }
  for (; j < extras.length; j++) out.push(wrap(extras[j] as Extra));
  return out;
}
