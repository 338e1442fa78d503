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
    await wide(client)
    await similar(client)
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

// The wide types: parameters as hex text, BigInt (through hex) and Buffer
// round trips, the type parsers (BigInt and Buffer), arrays, and distance,
// similarity and radius computed in JS equal to the server's at every
// distance 0..W.
async function wide (client) {
  const rnd = (() => { let x = 0x9e3779b97f4a7c15n; return (bits) => { let v = 0n; for (let i = 0; i < bits; i += 64) { x = BigInt.asUintN(64, x * 6364136223846793005n + 1442695040888963407n); v = (v << 64n) | (x ^ (x >> 29n)) } return BigInt.asUintN(bits, v) } })()
  for (const bits of [128, 256]) {
    const type = `simhash${bits}`
    const t = `wide${bits}`
    await client.query(`CREATE TABLE ${t} (id int PRIMARY KEY, fp ${type})`)
    await client.query(`INSERT INTO ${t} SELECT i, to_${type}('text number ' || i) FROM generate_series(1, 3000) i`)
    const r0 = await client.query(`SELECT fp FROM ${t} WHERE id = 1`)
    const centerHex = r0.rows[0].fp
    check(`${type} arrives as a hex string by default`, typeof centerHex === 'string' && new RegExp(`^[0-9a-f]{${bits / 4}}$`).test(centerHex), centerHex)
    const center = simhash.hexToBigInt(centerHex, bits)
    // edge values and random ones, each sent three ways
    const vals = [0n, (1n << BigInt(bits)) - 1n, 1n << BigInt(bits - 1), 1n, 1n << 64n, ...Array.from({ length: 20 }, () => rnd(bits))]
    const sent = []
    let id = 100000
    for (const v of vals) {
      for (const [how, param] of [['hex', simhash.bigIntToHex(v, bits).toUpperCase()],
        ['Buffer', simhash.toBuffer(v, bits)],
        ['hex of a Buffer', simhash.bigIntToHex(simhash.toBuffer(v, bits))]]) {
        await client.query(`INSERT INTO ${t} (id, fp) VALUES ($1, $2)`, [++id, param])
        sent.push([id, v, how])
      }
    }
    const back = await client.query(`SELECT id, fp::text AS t, fp::bytea AS b, fp::simhash::text AS w0 FROM ${t} WHERE id > 100000 ORDER BY id`)
    const bad = back.rows.filter((r, i) => Number(r.id) !== sent[i][0] || r.t !== simhash.bigIntToHex(sent[i][1], bits) ||
      r.w0 !== simhash.bigIntToHex(simhash.words(sent[i][1], bits)[0]) || simhash.words(r.t).length !== bits / 64 ||
      !r.b.equals(simhash.toBuffer(sent[i][1], bits)) || simhash.fromBuffer(r.b) !== sent[i][1])
    check(`${type}: hex, Buffer parameters store the intended ${bits} bits (text and bytea forms, word 0 = the server's cast to simhash, ${sent.length} values)`,
      back.rows.length === sent.length && bad.length === 0, JSON.stringify(bad.slice(0, 2)))

    // radius queries: the query fingerprint as hex text and as a Buffer
    const all = (await client.query(`SELECT id, fp FROM ${t}`)).rows.map((r) => ({ id: Number(r.id), fp: r.fp }))
    const q = simhash.hexToBigInt(centerHex, bits) ^ 0b1011n
    for (const k of [3, bits / 8]) {
      const want = all.filter((r) => simhash.hamming(r.fp, q, bits) <= k).map((r) => r.id).sort((a, b) => a - b)
      for (const [how, param] of [['hex', simhash.bigIntToHex(q, bits)], ['Buffer', simhash.toBuffer(q, bits)]]) {
        const got = (await client.query(`SELECT id FROM ${t} WHERE fp <-> $1 <= $2 ORDER BY id`, [param, k])).rows.map((r) => Number(r.id))
        check(`${type}: fp <-> $1 <= ${k}, query as ${how}: ${got.length} rows, as the JS distance says`, same(got, want) && want.length > 0, JSON.stringify(got))
      }
    }

    // distance and similarity at every distance 0..W, and random pairs
    const as = []
    const bs = []
    for (let d = 0; d <= bits; d++) {
      const a = rnd(bits)
      let b = a
      const order = Array.from({ length: bits }, (_, i) => i).sort(() => Number(rnd(64) & 1n) - 0.5)
      for (let i = 0; i < d; i++) b ^= 1n << BigInt(order[i])
      as.push(a); bs.push(b)
    }
    for (let i = 0; i < 50; i++) { as.push(rnd(bits)); bs.push(rnd(bits)) }
    const res = await client.query(
      `SELECT a::${type} <-> b::${type} AS d, simhash_similarity(a::${type}, b::${type}) AS s
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(a, b, n) ORDER BY n`,
      [as.map((v) => simhash.bigIntToHex(v, bits)), bs.map((v) => simhash.bigIntToHex(v, bits))])
    const off = res.rows.map((r, i) => [i, r.d, simhash.hamming(as[i], bs[i], bits), r.s, simhash.similarity(as[i], bs[i], bits)])
      .filter(([i, d, jd, s, js]) => d !== jd || s !== js ||
        simhash.hamming(simhash.toBuffer(as[i], bits), simhash.bigIntToHex(bs[i], bits)) !== jd)
    check(`${type}: hamming and similarity in JS equal the server's at every distance 0..${bits} and ${50} random pairs (exact doubles)`,
      res.rows.length === bits + 51 && off.length === 0 && new Set(res.rows.map((r) => r.d)).size === bits + 1, JSON.stringify(off.slice(0, 3)))
    const ss = [-1, -0.5, 0, 0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 1, Math.cos(Math.PI * 7 / bits)]
    const rr = await client.query(`SELECT simhash_radius(s, ${bits}) AS k FROM unnest($1::float8[]) WITH ORDINALITY AS u(s, n) ORDER BY n`, [ss])
    check(`${type}: radius in JS equals simhash_radius`, same(rr.rows.map((r) => r.k), ss.map((s) => simhash.radius(s, bits))),
      JSON.stringify(rr.rows.map((r) => r.k)))

    // type parsers: BigInt (default) and Buffer, arrays with NULL
    const reg = bits === 128 ? simhash.registerSimhash128 : simhash.registerSimhash256
    const oids = await reg(client)
    const p = await client.query(`SELECT fp, ARRAY[fp, NULL] AS a FROM ${t} WHERE id = 1`)
    check(`register${type[0].toUpperCase() + type.slice(1)}: OID of the column, ${type} and ${type}[] arrive as BigInt`,
      p.fields[0].dataTypeID === oids.oid && p.rows[0].fp === center && p.rows[0].a.length === 2 && p.rows[0].a[0] === center && p.rows[0].a[1] === null,
      `${p.fields[0].dataTypeID} ${oids.oid} ${p.rows[0].fp}`)
    await reg(client, { as: 'buffer' })
    const pb = await client.query(`SELECT id, fp, ARRAY[fp] AS a FROM ${t} WHERE id > 100000 ORDER BY id`)
    check(`${type} with { as: 'buffer' }: ${bits / 8}-byte Buffers, arrays of them`,
      pb.rows.every((r, i) => Buffer.isBuffer(r.fp) && r.fp.length === bits / 8 && simhash.fromBuffer(r.fp) === sent[i][1] && r.a[0].equals(r.fp)),
      String(pb.rows[0].fp))
    // a Buffer read back goes back as a parameter, and its width needs no bits
    const hexById = new Map(all.map((r) => [r.id, r.fp]))
    const probe = pb.rows[5]
    const near = await client.query(`SELECT id, fp <-> $1 AS d FROM ${t} WHERE fp <-> $1 <= 2 ORDER BY id`, [probe.fp])
    check(`${type}: a Buffer read back is a parameter; hamming of Buffers needs no width`,
      near.rows.some((r) => Number(r.id) === Number(probe.id)) &&
      near.rows.every((r) => r.d === simhash.hamming(hexById.get(Number(r.id)), probe.fp)),
      JSON.stringify(near.rows))
    let err = null
    try { simhash.hamming(probe.fp, 'f3a90c1e00b2d47f') } catch (e) { err = e }
    check(`${type}: a ${bits}-bit Buffer against 64-bit text is an error, not a distance`, err instanceof TypeError, err && err.message)
    client.setTypeParser(oids.oid, 'text', (s) => s)
    client.setTypeParser(oids.arrayOid, 'text', (s) => s)
  }
  let e1 = null
  try { simhash.hamming(1n << 100n, 0n) } catch (e) { e1 = e }
  check('a BigInt wider than 64 bits needs its width', e1 instanceof RangeError && /pass bits/.test(e1.message) &&
    simhash.hamming(1n << 100n, 0n, 128) === 1, e1 && e1.message)
}

// The similarity operator (extension 1.14): fp % q is simhash_similarity(fp, q)
// >= simhash.similarity_threshold; the threshold set for the session, for a
// transaction (withSimilarityThreshold), and the rows compared with the JS
// similarity and with the radius form.
async function similar (client) {
  for (const [bits, type, t] of [[64, 'simhash', 'docs'], [128, 'simhash128', 'wide128'], [256, 'simhash256', 'wide256']]) {
    const all = (await client.query(`SELECT id, fp::text AS fp FROM ${t}`)).rows.map((r) => ({ id: Number(r.id), fp: r.fp }))
    const qHex = all.find((r) => r.id === 1).fp
    const q = simhash.toBuffer(simhash.hexToBigInt(qHex, bits) ^ 0b110n, bits)
    for (const s of [0.99, 0.95, 0.9, 0.8]) {
      const want = all.filter((r) => simhash.similarity(r.fp, q) >= s).map((r) => r.id).sort((a, b) => a - b)
      const got = await simhash.withSimilarityThreshold(client, s, async (c) => {
        const shown = (await c.query('SHOW simhash.similarity_threshold')).rows[0]['simhash.similarity_threshold']
        const rows = (await c.query(`SELECT id FROM ${t} WHERE fp % $1 ORDER BY id`, [q])).rows.map((r) => Number(r.id))
        return { shown, rows }
      })
      const byRadius = (await client.query(`SELECT id FROM ${t} WHERE fp <-> $1 <= $2 ORDER BY id`,
        [q, simhash.radius(s, bits)])).rows.map((r) => Number(r.id))
      check(`${type}: fp % $1 at threshold ${s} (withSimilarityThreshold): ${got.rows.length} rows, those of the JS similarity and of fp <-> $1 <= radius(${s}, ${bits})`,
        Number(got.shown) === s && same(got.rows, want) && same(byRadius, want) && want.length > 0, JSON.stringify(got))
    }
  }
  const before = (await client.query('SHOW simhash.similarity_threshold')).rows[0]['simhash.similarity_threshold']
  check('withSimilarityThreshold leaves the session setting as it was', before === '0.9', before)
  let err = null
  try {
    await simhash.withSimilarityThreshold(client, 0.5, async (c) => { await c.query('SELECT 1/0') })
  } catch (e) { err = e }
  const after = (await client.query('SHOW simhash.similarity_threshold')).rows[0]['simhash.similarity_threshold']
  const idle = (await client.query('SELECT now() = statement_timestamp() AS idle')).rows[0].idle
  check('withSimilarityThreshold rolls back and rethrows when its function throws', err && err.code === '22012' && after === '0.9' && idle, `${err && err.code} ${after}`)
  const set = await simhash.setSimilarityThreshold(client, 0.75)
  const qs = (await client.query('SELECT id FROM docs WHERE fp % $1 ORDER BY id', ['f3a90c1e00b2d47f'])).rows.map((r) => Number(r.id))
  const docs = (await client.query('SELECT id, fp::text AS fp FROM docs')).rows
  check('setSimilarityThreshold: the session threshold applies to later queries',
    set === 0.75 && same(qs, docs.filter((r) => simhash.similarity(r.fp, 'f3a90c1e00b2d47f') >= 0.75).map((r) => Number(r.id)).sort((a, b) => a - b)),
    JSON.stringify(qs))
  let rangeErr = null
  try { await simhash.setSimilarityThreshold(client, 1.5) } catch (e) { rangeErr = e }
  check('a threshold outside 0..1 is refused in JS', rangeErr instanceof RangeError, rangeErr)
  await client.query('RESET simhash.similarity_threshold')
}

main()
  .catch((e) => check('test script ran to the end', false, e && e.stack))
  .finally(() => {
    console.log(`${passed} passed, ${failed} failed`)
    process.exitCode = failed ? 1 : 0
  })
