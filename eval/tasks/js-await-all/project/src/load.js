const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function loadOne(id) {
  await delay(5 * (3 - (id % 3)));
  return { id, name: `item-${id}` };
}

/** Loads every id, in parallel; resolves to the items in the order of the ids. */
export async function loadAll(ids) {
  return ids.map((id) => loadOne(id));
}
