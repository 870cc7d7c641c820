/**
 * Folder-level import cycles in src/: collapses madge's module graph to the top-level folders (api, chain,
 * store, …; files directly under src/ count as one folder, "(root)") and asks madge for cycles in that graph.
 * Exits 1 and prints each cycle with the imports that make it. Run by `npm run lint:cycles`.
 */
import madge from 'madge';

const files = (await madge('src', { fileExtensions: ['ts'], tsConfig: 'tsconfig.json' })).obj();
const folderOf = (file) => (file.includes('/') ? file.split('/')[0] : '(root)');
const graph = {};
const because = {};
for (const [file, deps] of Object.entries(files)) {
  const from = folderOf(file);
  graph[from] ??= new Set();
  for (const dep of deps) {
    const to = folderOf(dep);
    if (to === from) continue;
    graph[from].add(to);
    const edge = `${from} -> ${to}`;
    because[edge] ??= [];
    because[edge].push(`${file} -> ${dep}`);
  }
}
const cycles = (await madge(Object.fromEntries(Object.entries(graph).map(([k, v]) => [k, [...v]])))).circular();
if (cycles.length === 0) {
  console.log(`No folder-level cycles among ${Object.keys(graph).length} folders of src/.`);
} else {
  for (const cycle of cycles) {
    console.error(`folder cycle: ${[...cycle, cycle[0]].join(' -> ')}`);
    for (const [i, from] of cycle.entries())
      console.error(`  ${(because[`${from} -> ${cycle[(i + 1) % cycle.length]}`] ?? []).join('\n  ')}`);
  }
  process.exit(1);
}
