// The vector files a wasm runner reads (tests/runners/CONTRACT.md): every *.json directly inside
// each folder of `dirs` (colon-separated), sorted by name in each, then each file of `singles`
// (colon-separated: XBORDER_VECTOR_FILES, contract v4's accounts.json and forms.json) that is
// not already read from a v4/ folder, then each *.json of the folder `own` (the project's vectors
// of ops not every runtime has yet: tests/vectors/handling/, as the Rust runner reads it) whose
// name was not read already. Each as { name, doc } (doc: the parsed file).
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export function vectorFiles(dirs = '', singles = '', own = '') {
  const paths = [];
  for (const dir of dirs.split(':').filter(Boolean)) {
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) paths.push(join(dir, name));
  }
  for (const file of singles.split(':').filter(Boolean)) {
    const listed = paths.some((p) => basename(p) === basename(file) && basename(dirname(p)) === 'v4');
    if (!listed && existsSync(file)) paths.push(file);
  }
  if (own && existsSync(own)) {
    for (const name of readdirSync(own).filter((n) => n.endsWith('.json')).sort()) {
      if (!paths.some((p) => basename(p) === name)) paths.push(join(own, name));
    }
  }
  return paths.map((name) => ({ name, doc: JSON.parse(readFileSync(name, 'utf8')) }));
}
