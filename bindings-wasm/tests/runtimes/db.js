// The user's module the Fetch recipe imports (./db.js): a line per saved event on stdout.
export async function saveEvent(id, event, data) {
  console.log(`saved ${id} ${event} ${JSON.stringify(data)}`);
}
