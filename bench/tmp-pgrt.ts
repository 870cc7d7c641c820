import pg from 'pg';
const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
await c.connect();
await c.query('drop table if exists tmp_rt; create table tmp_rt (a text, b text, c text, primary key (a,b))');
for (const rows of [1, 5, 10]) {
  const vals = Array.from({ length: rows }, (_, i) => `($${i * 3 + 1}, $${i * 3 + 2}, $${i * 3 + 3})`).join(',');
  const text = `insert into tmp_rt values ${vals} on conflict do nothing returning a, b`;
  let n = 0;
  const t0 = performance.now();
  const N = 2000;
  for (let k = 0; k < N; k++) {
    const params: string[] = [];
    for (let i = 0; i < rows; i++) params.push(`x${k}`, `${rows}-${i}`, 'y'.repeat(300));
    await c.query({ name: `q${rows}`, text, values: params });
    n++;
  }
  const dt = performance.now() - t0;
  console.log(rows, 'rows/group:', (dt / N * 1000).toFixed(0), 'µs/group', ((N * rows) / dt * 1000).toFixed(0), 'rows/s');
}
await c.query('drop table tmp_rt'); await c.end();
