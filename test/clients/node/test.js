'use strict'
// node-postgres (pg) against the simhash extension, through the extended
// protocol as an application uses it: fingerprints inserted from SQL and from
// JS parameters (hex text, a BigInt through bigint, an 8-byte Buffer), a
// parameterized radius query checked against a BigInt Hamming distance, the
// GIN index used by one-shot and named prepared statements (custom and
// generic plans), the simhash type parser and the distance as a number.
// Connects with the PG* environment variables; creates and drops its own
// database.  Prints "ok"/"FAIL" lines and "N passed, N failed".
const path = require('path')
const pg = require('pg')
// the package as an application installs it (npm install ./clients/node,
// done by run); the file itself when run without that
const simhash = (() => {
  try {
    return require('simhash-pg')
  } catch (e) {
    return require(path.join(__dirname, '..', '..', '..', 'clients', 'node', 'simhash.js'))
  }
})()

const DB = 'simhash_node_test'
let passed = 0
let failed = 0
function check (name, ok, detail) {
  if (ok) {
    passed++
    console.log('ok  ', name)
  } else {
    failed++
    console.log('FAIL', name, detail === undefined ? '' : String(detail))
  }
}
// run installs the package first (npm links or copies it, as its
// install-links setting says): require('simhash-pg') must then load a file
// identical to clients/node/simhash.js
if (process.env.SIMHASH_NODE_PACKAGE) {
  const fs = require('fs')
  let resolved
  try { resolved = require.resolve('simhash-pg') } catch (e) { resolved = String(e) }
  const source = path.join(__dirname, '..', '..', '..', 'clients', 'node', 'simhash.js')
  check("npm install ./clients/node: require('simhash-pg') loads clients/node/simhash.js",
    fs.existsSync(resolved) && fs.readFileSync(resolved, 'utf8') === fs.readFileSync(source, 'utf8'), resolved)
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b)
const flip = (v, ...bits) => bits.reduce((x, b) => x ^ (1n << BigInt(b)), v)
const ids = (rows) => rows.map((r) => Number(r.id))

// Every plan auto_explain reports for this client's statements, as NOTICEs.
async function captureExplain (client) {
  await client.query("LOAD 'auto_explain'")
  await client.query('SET auto_explain.log_min_duration = 0')
  await client.query('SET auto_explain.log_level = notice')
  const plans = []
  client.on('notice', (msg) => { if (/plan:/.test(msg.message)) plans.push(msg.message) })
  return plans
}
const usesIndex = (plan) => /Index Scan on docs_fp_gin/.test(plan) && /simhash_ball/.test(plan)

async function main () {
  const admin = new pg.Client({ database: process.env.PGDATABASE || 'postgres' })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${DB}`)
  await admin.query(`CREATE DATABASE ${DB}`)
  const client = new pg.Client({ database: DB })
  await client.connect()
  try {
    await run(client)
  } finally {
    await client.end()
    await admin.query(`DROP DATABASE IF EXISTS ${DB}`)
    await admin.end()
  }
}

async function run (client) {
  await client.query('CREATE EXTENSION simhash')
  await client.query('CREATE TABLE docs (id bigint PRIMARY KEY, fp simhash)')
  // 20,000 pseudo-random fingerprints, and from SQL a planted cluster: the
  // fingerprint of row 1 with one of bits 0..5 flipped (distance 1 each)
  await client.query(`INSERT INTO docs SELECT i, hashint8extended(i, 7)::simhash
                      FROM generate_series(1, 20000) i`)
  await client.query(`INSERT INTO docs SELECT 100000 + b, (hashint8extended(1, 7) # (1::bigint << b))::simhash
                      FROM generate_series(0, 5) b`)
  await client.query('CREATE INDEX docs_fp_gin ON docs USING gin (fp simhash_gin_ops)   -- named: the default class suits radii up to about 4')

  // Without a type parser a simhash column is the server's text: 16 hex digits
  const r0 = await client.query('SELECT fp FROM docs WHERE id = 1')
  const centerHex = r0.rows[0].fp
  check('simhash arrives as a hex string by default', typeof centerHex === 'string' && /^[0-9a-f]{16}$/.test(centerHex), centerHex)
  const center = simhash.hexToBigInt(centerHex)

  // From JS: hex text parameters (upper case accepted), distances 2..4 and a far one
  const byHex = [
    [200001, flip(center, 10, 20)],
    [200002, flip(center, 30, 40, 50)],
    [200003, flip(center, 1, 2, 3, 4)],
    [200004, center ^ 0xffffn]
  ]
  for (const [id, v] of byHex) {
    await client.query('INSERT INTO docs (id, fp) VALUES ($1, $2)', [id, simhash.bigIntToHex(v).toUpperCase()])
  }
  // From JS: BigInt through the bigint cast; bit 63 flipped, so one of them is >= 2^63
  // (a negative bigint on the wire: toSigned gives the same 64 bits)
  const byBigInt = [
    [300001, flip(center, 63)],
    [300002, flip(center, 63, 62)],
    [300003, flip(center, 63, 0, 33)],
    [300004, flip(center, 5, 6)]
  ]
  for (const [id, v] of byBigInt) {
    await client.query('INSERT INTO docs (id, fp) VALUES ($1, $2::bigint::simhash)', [id, simhash.toSigned(v)])
  }
  const high = center | (1n << 63n)
  let err = null
  try {
    await client.query('SELECT $1::bigint::simhash', [high])
  } catch (e) { err = e }
  check('an unsigned BigInt >= 2^63 is out of range for bigint (use toSigned)', err && err.code === '22003', err && err.message)
  // From JS: an 8-byte Buffer goes as a binary parameter (simhash_recv)
  await client.query('INSERT INTO docs (id, fp) VALUES ($1, $2)', [400001, simhash.toBuffer(flip(center, 7, 8))])
  await client.query('ANALYZE docs')

  const back = await client.query(`SELECT id, fp, fp::bigint AS b FROM docs WHERE id >= 200000 ORDER BY id`)
  const inserted = new Map([...byHex, ...byBigInt, [400001, flip(center, 7, 8)]])
  check('hex, BigInt and Buffer parameters stored the intended 64 bits',
    back.rows.length === inserted.size &&
    back.rows.every((r) => r.fp === simhash.bigIntToHex(inserted.get(Number(r.id))) &&
                           BigInt.asUintN(64, BigInt(r.b)) === inserted.get(Number(r.id))),
    JSON.stringify(back.rows))

  // Reference answers: every fingerprint, distances in JS
  const all = (await client.query('SELECT id, fp FROM docs')).rows
    .map((r) => ({ id: Number(r.id), fp: simhash.hexToBigInt(r.fp) }))
  const expect = (q, k) => all.filter((r) => simhash.hamming(r.fp, q) <= k)
    .sort((a, b) => a.id - b.id).map((r) => ({ id: r.id, d: simhash.hamming(r.fp, q) }))

  // Parameterized radius query, one-shot (unnamed statement).  node-postgres
  // sends every parameter untyped (OID 0), so the server infers the types:
  // $1 from `simhash <-> $1`; $2 from `simhash_distance <= $2`.  Also with
  // $2::int, and with the query fingerprint as an 8-byte Buffer (binary).
  const forms = {
    'fp <-> $1 <= $2': 'SELECT id, fp <-> $1 AS d FROM docs WHERE fp <-> $1 <= $2 ORDER BY id',
    'fp <-> $1 <= $2::int': 'SELECT id, fp <-> $1 AS d FROM docs WHERE fp <-> $1 <= $2::int ORDER BY id'
  }
  for (const [form, sql] of Object.entries(forms)) {
    for (const k of [0, 1, 2, 3, 4, 5]) {
      for (const [how, q] of [['hex', centerHex], ['Buffer', simhash.toBuffer(center)]]) {
        const res = await client.query(sql, [q, k])
        const got = res.rows.map((r) => ({ id: Number(r.id), d: r.d }))
        check(`${form}, k=${k}, query as ${how}: ${got.length} rows, as the BigInt Hamming distance says`,
          same(got, expect(center, k)), JSON.stringify(got))
      }
    }
  }
  const rd = await client.query(forms['fp <-> $1 <= $2'], [centerHex, 3])
  check('distance is a JS number from an int4 column',
    rd.rows.length > 0 && rd.rows.every((r) => typeof r.d === 'number') && rd.fields[1].dataTypeID === 23,
    `${typeof rd.rows[0].d}, OID ${rd.fields[1].dataTypeID}`)

  for (const [form, sql] of Object.entries(forms)) {
    const plan = (await client.query('EXPLAIN ' + sql, [centerHex, 3])).rows.map((r) => r['QUERY PLAN']).join('\n')
    check(`${form}: EXPLAIN with bound parameters uses the GIN index`, usesIndex(plan), '\n' + plan)
  }

  // Named prepared statements: parsed once, then Bind/Execute; past the five
  // custom plans the plan cache may switch to a generic plan.  auto_explain
  // shows the plan each execution really ran.
  const plans = await captureExplain(client)
  let n = 0
  for (const [form, sql] of Object.entries(forms)) {
    for (const mode of ['auto', 'force_generic_plan']) {
      await client.query(`SET plan_cache_mode = ${mode}`)
      const name = `radius_${++n}`
      const label = `${form}, prepared "${name}", plan_cache_mode ${mode}`
      let allRight = true
      let detail = ''
      plans.length = 0
      for (let i = 0; i < 8; i++) {
        const k = 2 + (i % 3)
        const res = await client.query({ name, text: sql, values: [centerHex, k] })
        const got = res.rows.map((r) => ({ id: Number(r.id), d: r.d }))
        if (!same(got, expect(center, k))) { allRight = false; detail = `k=${k}: ${JSON.stringify(got)}` }
      }
      const executed = plans.filter((p) => p.includes(sql))
      const stats = (await client.query(
        'SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1', [name])).rows[0]
      const generic = stats ? Number(stats.generic_plans) : 0
      const custom = stats ? Number(stats.custom_plans) : 0
      check(`${label}: 8 executions, right rows`, allRight, detail)
      check(`${label}: server-side statement (generic plans ${generic}, custom ${custom})`,
        generic + custom === 8 && (mode === 'auto' || generic === 8), JSON.stringify(stats))
      const bad = executed.find((p) => !usesIndex(p))
      check(`${label}: every execution used the GIN index`,
        executed.length === 8 && !bad, bad ? '\n' + bad : `${executed.length} plans`)
      if (mode === 'force_generic_plan') {
        const last = executed[executed.length - 1] || ''
        check(`${label}: the generic plan's index condition holds the parameters`,
          /Index Cond: \(fp <@ simhash_ball\(\$1, (\$2|\(\$2\)::integer)\)\)/.test(last), '\n' + last)
      }
    }
  }
  await client.query('RESET plan_cache_mode')
  await client.query('RESET auto_explain.log_min_duration')

  // The type parser: look up the OID (extension OIDs are not fixed), map to BigInt
  const oids = await simhash.registerSimhash(client)
  const typed = await client.query('SELECT id, fp, fp <-> $1 AS d FROM docs WHERE fp <-> $1 <= 3 ORDER BY id', [centerHex])
  check('registerSimhash: OID looked up from pg_type matches the column',
    typed.fields[1].dataTypeID === oids.oid, `${typed.fields[1].dataTypeID} vs ${oids.oid}`)
  check('registerSimhash: simhash arrives as an unsigned BigInt',
    typed.rows.every((r) => typeof r.fp === 'bigint' && simhash.hamming(r.fp, center) === r.d),
    typed.rows.map((r) => typeof r.fp).join())
  const [hiId, hiValue] = byBigInt.find(([, v]) => v >= 1n << 63n)
  const hi = await client.query('SELECT fp FROM docs WHERE id = $1', [hiId])
  check('registerSimhash: a fingerprint >= 2^63 stays unsigned',
    hi.rows[0].fp === hiValue, String(hi.rows[0].fp))
  // A fingerprint read as a BigInt goes back as hex text or 8 bytes; the
  // BigInt itself is sent as decimal text, which the server refuses with a
  // hint that gives its 64 bits in hex
  for (const [how, param] of [['bigIntToHex', simhash.bigIntToHex(hi.rows[0].fp)],
    ['toBuffer', simhash.toBuffer(hi.rows[0].fp)]]) {
    const r = await client.query('SELECT id FROM docs WHERE fp <-> $1 = 0', [param])
    check(`registerSimhash: a BigInt read back goes back as a parameter through ${how}`,
      r.rows.some((x) => Number(x.id) === Number(hiId)), JSON.stringify(r.rows))
  }
  let bigErr = null
  try { await client.query('SELECT $1::simhash', [hi.rows[0].fp]) } catch (e) { bigErr = e }
  check('a raw BigInt parameter is 22P02, its hint giving the 64 bits in hex',
    bigErr && bigErr.code === '22P02' && bigErr.hint && bigErr.hint.includes(`'${simhash.bigIntToHex(hiValue)}'`),
    bigErr && `${bigErr.message} / ${bigErr.hint}`)
  const arr = await client.query('SELECT ARRAY[fp, NULL] AS a FROM docs WHERE id = 1')
  check('registerSimhash: simhash[] arrives as an array of BigInt',
    same(arr.rows[0].a.map(String), [String(center), 'null']), String(arr.rows[0].a))

  // Another client is not affected by a per-client parser
  const other = new pg.Client({ database: DB })
  await other.connect()
  const o = await other.query('SELECT fp FROM docs WHERE id = 1')
  check('per-client registration leaves other clients with strings', o.rows[0].fp === centerHex, o.rows[0].fp)
  // Global registration (pg.types), as for a pool
  await simhash.registerSimhash(other, { types: pg.types })
  const third = new pg.Client({ database: DB })
  await third.connect()
  const t = await third.query('SELECT fp FROM docs WHERE id = 1')
  check('registration in pg.types applies to clients made later', t.rows[0].fp === center, String(t.rows[0].fp))
  await third.end()
  await other.end()
  pg.types.setTypeParser(oids.oid, 'text', (s) => s)
}

main()
  .catch((e) => check('test script ran to the end', false, e && e.stack))
  .finally(() => {
    console.log(`${passed} passed, ${failed} failed`)
    process.exitCode = failed ? 1 : 0
  })
