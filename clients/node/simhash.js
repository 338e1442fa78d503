'use strict'
// simhash fingerprints in Node.js, for node-postgres (pg).  No dependencies.
//
// A simhash is an unsigned 64-bit number.  The server's text form is 16
// lower-case hex digits; its bigint cast keeps the same 64 bits (two's
// complement), so values of 2^63 and above are negative bigints.  Here a
// fingerprint is a BigInt in 0 .. 2^64-1.
//
//   const pg = require('pg')
//   const simhash = require('./simhash')
//   const client = new pg.Client(); await client.connect()
//   await simhash.registerSimhash(client)          // simhash columns -> BigInt
//   const { rows } = await client.query(
//     'SELECT id, fp, fp <-> $1 AS d FROM docs WHERE fp <-> $1 <= $2', ['f3a90c1e00b2d47f', 3])
//   // rows[i].fp is a BigInt, rows[i].d a number (the distance is an int4)
//
// The wide types simhash128 and simhash256 (extension 1.5) are W/64 64-bit
// words, word 0 first; their text form is W/4 hex digits in that order and
// their binary form W/8 bytes.  Here such a fingerprint is a BigInt, the
// unsigned value of its text form (0 .. 2^W-1), or a Buffer of W/8 bytes;
// registerSimhash128 / registerSimhash256 map their columns to either.
// Every function taking a fingerprint accepts hex text, a Buffer or a BigInt:
// the width is the length of the text or Buffer, else `bits` (default 64).
//
// Versioned with the extension: simhash-pg X.Y.0 (package.json) is the client
// of extension X.Y (default_version in simhash.control; test/package checks
// that they agree).  The 64-bit functions work with every extension version
// from 1.0 on; the wide types need 1.5, the % operator and
// simhash.similarity_threshold 1.14.

const MASK64 = (1n << 64n) - 1n
const WIDTHS = [64, 128, 256]
const HEX = /^[0-9a-fA-F]+$/

// bits, if it is a fingerprint width; else a RangeError.
function checkBits (bits) {
  if (!WIDTHS.includes(bits)) {
    throw new RangeError(`fingerprint width ${bits} is not supported: the widths are 64, 128 and 256 bits`)
  }
  return bits
}

// The width a value states by itself (hex text, Buffer), or undefined.
function widthOf (value) {
  if (typeof value === 'string') return WIDTHS.find((w) => w / 4 === value.length)
  if (value instanceof Uint8Array) return WIDTHS.find((w) => w / 8 === value.length)
  return undefined
}

// The width of an operation: bits if given, else what a value states, else 64.
function widthFor (bits, ...values) {
  if (bits !== undefined) return checkBits(bits)
  for (const v of values) {
    const w = widthOf(v)
    if (w) return w
  }
  return 64
}

// 'W/4 hex digits' -> BigInt (unsigned).  Upper case is accepted, as by the server.
function hexToBigInt (hex, bits = 64) {
  checkBits(bits)
  if (typeof hex !== 'string' || hex.length !== bits / 4 || !HEX.test(hex)) {
    throw new TypeError(`invalid ${typeName(bits)} text: ${JSON.stringify(hex)} (want ${bits / 4} hex digits)`)
  }
  return BigInt('0x' + hex)
}

// The SQL type of a width.
function typeName (bits) {
  return bits === 64 ? 'simhash' : `simhash${bits}`
}

// BigInt (or a safe integer, hex text, Buffer) -> W/4 lower-case hex digits.
// For 64 bits, negative values in -2^63 .. -1 are read as two's complement,
// like the server's bigint cast.
function bigIntToHex (value, bits) {
  bits = widthFor(bits, value)
  return toUnsigned(value, bits).toString(16).padStart(bits / 4, '0')
}

// A fingerprint as hex text, a Buffer, a BigInt or a safe integer -> BigInt in
// 0 .. 2^W-1.  For 64 bits, negative values are two's complement.  pg returns
// a bigint column as a decimal string: pass BigInt(row.x), as a string here is
// always hex.
function toUnsigned (value, bits) {
  bits = widthFor(bits, value)
  if (typeof value === 'string') {
    value = hexToBigInt(value, bits)
  } else if (value instanceof Uint8Array) {
    value = fromBuffer(value, bits)
  } else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integer: ${value}`)
    value = BigInt(value)
  } else if (typeof value !== 'bigint') {
    throw new TypeError(`not a ${typeName(bits)} value: ${typeof value}`)
  }
  const low = bits === 64 ? -(1n << 63n) : 0n
  if (value < low || value >= 1n << BigInt(bits)) {
    throw new RangeError(`${value} does not fit in ${bits} bits` +
      (bits === 64 && value > 0n ? ' (for simhash128 or simhash256 pass bits: 128 or 256)' : ''))
  }
  return BigInt.asUintN(bits, value)
}

// The same 64 bits as a signed BigInt, for a bigint parameter: `$1::bigint::simhash`.
function toSigned (value) {
  return BigInt.asIntN(64, toUnsigned(value, 64))
}

// W/8 bytes, word 0 first, each big-endian: the binary form (send/recv, the
// bytea cast).  node-postgres sends a Buffer parameter in binary, so
// `fp <-> $1` with a Buffer reads it with the column type's recv function.
function toBuffer (value, bits) {
  bits = widthFor(bits, value)
  const x = toUnsigned(value, bits)
  const buf = Buffer.alloc(bits / 8)
  for (let i = 0; i < bits / 64; i++) {
    buf.writeBigUInt64BE((x >> BigInt(bits - 64 * (i + 1))) & MASK64, 8 * i)
  }
  return buf
}

// W/8 bytes (a Buffer or Uint8Array) -> BigInt; the width is the length
// unless bits says it.
function fromBuffer (buf, bits) {
  bits = widthFor(bits, buf)
  if (!(buf instanceof Uint8Array) || buf.length !== bits / 8) {
    throw new TypeError(`a ${typeName(bits)} is ${bits / 8} bytes, not ${buf && buf.length}`)
  }
  return BigInt('0x' + Buffer.from(buf.buffer, buf.byteOffset, buf.length).toString('hex'))
}

// The W/64 words of a fingerprint, word 0 first, as BigInts.
function words (value, bits) {
  bits = widthFor(bits, value)
  const x = toUnsigned(value, bits)
  const out = []
  for (let i = 0; i < bits / 64; i++) out.push((x >> BigInt(bits - 64 * (i + 1))) & MASK64)
  return out
}

// Hamming distance, 0..W, as the server's `a <-> b`.  Both of one width: the
// length of a text or Buffer argument, else bits (default 64).
function hamming (a, b, bits) {
  bits = widthFor(bits, a, b)
  let x = toUnsigned(a, bits) ^ toUnsigned(b, bits)
  let n = 0
  while (x) { x &= x - 1n; n++ }
  return n
}

// cos(pi * d / 256) for d = 0..256, as C's cos() (glibc) gives it: the
// server's simhash_similarity is cos(M_PI * d / W), and V8's Math.cos is off
// by one unit in the last place for 9 of these arguments.  pi * d / W is the
// same double as pi * (d * 256 / W) / 256 (scaling by 2 is exact), so one
// table serves every width.  Made with Python (math.cos is the C library's):
//   [math.cos(math.pi * d / 256) for d in range(257)]
// and checked against the server at every distance by test/clients/node.
const COS256 = [
  1.0, 0.9999247018391445, 0.9996988186962042, 0.9993223845883495, 0.9987954562051724,
  0.9981181129001492, 0.9972904566786902, 0.996312612182778, 0.9951847266721969,
  0.9939069700023561, 0.99247953459871, 0.99090263542778, 0.989176509964781, 0.9873014181578584,
  0.9852776423889412, 0.9831054874312163, 0.9807852804032304, 0.9783173707196277,
  0.9757021300385286, 0.9729399522055602, 0.970031253194544, 0.9669764710448521,
  0.9637760657954398, 0.9604305194155658, 0.9569403357322088, 0.9533060403541939,
  0.9495281805930367, 0.9456073253805213, 0.9415440651830208, 0.937339011912575, 0.932992798834739,
  0.9285060804732156, 0.9238795325112867, 0.9191138516900578, 0.9142097557035307,
  0.9091679830905224, 0.9039892931234433, 0.8986744656939538, 0.8932243011955153,
  0.8876396204028539, 0.881921264348355, 0.8760700941954066, 0.8700869911087115,
  0.8639728561215868, 0.8577286100002721, 0.8513551931052652, 0.8448535652497071,
  0.8382247055548381, 0.8314696123025452, 0.8245893027850253, 0.8175848131515837,
  0.8104571982525948, 0.8032075314806449, 0.7958369046088836, 0.7883464276266063,
  0.7807372285720945, 0.773010453362737, 0.765167265622459, 0.7572088465064846, 0.7491363945234594,
  0.7409511253549591, 0.7326542716724128, 0.724247082951467, 0.7157308252838186,
  0.7071067811865476, 0.6983762494089729, 0.6895405447370669, 0.6806009977954531,
  0.6715589548470183, 0.6624157775901718, 0.6531728429537768, 0.6438315428897915,
  0.6343932841636455, 0.6248594881423865, 0.6152315905806268, 0.6055110414043255,
  0.5956993044924335, 0.5857978574564389, 0.5758081914178453, 0.5657318107836132,
  0.5555702330196023, 0.5453249884220465, 0.5349976198870973, 0.5245896826784688,
  0.5141027441932217, 0.5035383837257176, 0.4928981922297841, 0.48218377207912283,
  0.4713967368259978, 0.46053871095824, 0.4496113296546066, 0.4386162385385277, 0.4275550934302822,
  0.4164295600976373, 0.40524131400498986, 0.3939920400610481, 0.38268343236508984,
  0.3713171939518376, 0.3598950365349883, 0.3484186802494345, 0.33688985339222005,
  0.325310292162263, 0.3136817403988916, 0.3020059493192282, 0.29028467725446233,
  0.27851968938505306, 0.2667127574748984, 0.2548656596045146, 0.24298017990326398,
  0.23105810828067128, 0.21910124015686977, 0.20711137619221856, 0.19509032201612833,
  0.18303988795514106, 0.17096188876030136, 0.1588581433338614, 0.14673047445536175,
  0.13458070850712622, 0.12241067519921628, 0.11022220729388318, 0.09801714032956077,
  0.08579731234443988, 0.07356456359966745, 0.06132073630220865, 0.049067674327418126,
  0.03680722294135899, 0.024541228522912264, 0.012271538285719944, 6.123233995736766e-17,
  -0.012271538285719823, -0.024541228522912142, -0.036807222941358866, -0.04906767432741801,
  -0.06132073630220853, -0.07356456359966733, -0.08579731234443976, -0.09801714032956065,
  -0.11022220729388306, -0.12241067519921615, -0.1345807085071261, -0.14673047445536164,
  -0.15885814333386128, -0.17096188876030124, -0.18303988795514092, -0.1950903220161282,
  -0.20711137619221845, -0.21910124015686966, -0.23105810828067114, -0.24298017990326387,
  -0.2548656596045145, -0.2667127574748983, -0.27851968938505295, -0.29028467725446216,
  -0.3020059493192281, -0.3136817403988914, -0.32531029216226287, -0.33688985339221994,
  -0.3484186802494344, -0.35989503653498817, -0.3713171939518375, -0.3826834323650897,
  -0.393992040061048, -0.40524131400498975, -0.416429560097637, -0.42755509343028186,
  -0.4386162385385274, -0.4496113296546067, -0.46053871095824006, -0.4713967368259977,
  -0.4821837720791227, -0.492898192229784, -0.5035383837257175, -0.5141027441932217,
  -0.5245896826784687, -0.534997619887097, -0.5453249884220462, -0.555570233019602,
  -0.5657318107836132, -0.5758081914178453, -0.5857978574564389, -0.5956993044924334,
  -0.6055110414043254, -0.6152315905806267, -0.6248594881423862, -0.6343932841636454,
  -0.6438315428897913, -0.6531728429537765, -0.6624157775901719, -0.6715589548470184,
  -0.680600997795453, -0.6895405447370669, -0.6983762494089728, -0.7071067811865475,
  -0.7157308252838186, -0.7242470829514668, -0.7326542716724127, -0.7409511253549589,
  -0.7491363945234591, -0.7572088465064846, -0.765167265622459, -0.773010453362737,
  -0.7807372285720945, -0.7883464276266062, -0.7958369046088835, -0.8032075314806448,
  -0.8104571982525947, -0.8175848131515836, -0.8245893027850251, -0.8314696123025453,
  -0.8382247055548381, -0.8448535652497071, -0.8513551931052652, -0.857728610000272,
  -0.8639728561215867, -0.8700869911087113, -0.8760700941954065, -0.8819212643483549,
  -0.8876396204028538, -0.8932243011955152, -0.8986744656939539, -0.9039892931234433,
  -0.9091679830905224, -0.9142097557035307, -0.9191138516900578, -0.9238795325112867,
  -0.9285060804732155, -0.9329927988347388, -0.9373390119125748, -0.9415440651830207,
  -0.9456073253805212, -0.9495281805930367, -0.9533060403541939, -0.9569403357322088,
  -0.9604305194155658, -0.9637760657954398, -0.9669764710448521, -0.970031253194544,
  -0.9729399522055601, -0.9757021300385285, -0.9783173707196275, -0.9807852804032304,
  -0.9831054874312163, -0.9852776423889412, -0.9873014181578584, -0.989176509964781,
  -0.99090263542778, -0.99247953459871, -0.9939069700023561, -0.9951847266721968,
  -0.996312612182778, -0.9972904566786902, -0.9981181129001492, -0.9987954562051724,
  -0.9993223845883495, -0.9996988186962042, -0.9999247018391445, -1.0
]

// The server's similarity_of(d, bits).
function similarityOf (d, bits) {
  return COS256[d * (256 / bits)]
}

// simhash_similarity(a, b): cos(pi * d / W), the server's double.
function similarity (a, b, bits) {
  bits = widthFor(bits, a, b)
  return similarityOf(hamming(a, b, bits), bits)
}

// simhash_radius(similarity, bits): the largest k in 0..bits with
// cos(pi * k / bits) >= similarity, so `fp <-> $1 <= radius(s, W)` selects
// what `fp % $1` selects when simhash.similarity_threshold is s.
function radius (s, bits) {
  checkBits(bits)
  if (typeof s !== 'number' || !(s >= -1 && s <= 1)) {
    throw new RangeError(`similarity ${s} is not between -1 and 1`)
  }
  let k = 0
  while (k < bits && similarityOf(k + 1, bits) >= s) k++
  return k
}

// A threshold of simhash.similarity_threshold: 0..1, checked before any query.
function checkThreshold (s) {
  if (typeof s !== 'number' || !(s >= 0 && s <= 1)) {
    throw new RangeError(`similarity threshold ${s} is not between 0 and 1`)
  }
}

// Sets simhash.similarity_threshold, the threshold of `fp % q` (extension
// 1.14), for the rest of the session, or with { local: true } for the rest of
// the current transaction.  On a pool, a session setting stays with the
// connection: prefer withSimilarityThreshold.  Resolves to the value set.
async function setSimilarityThreshold (client, s, options = {}) {
  checkThreshold(s)
  const { rows } = await client.query(
    "SELECT set_config('simhash.similarity_threshold', $1, $2) AS v", [String(s), !!options.local])
  return Number(rows[0].v)
}

// Runs fn(client) in a transaction with simhash.similarity_threshold set to s
// (SET LOCAL): the setting ends with the transaction, so a pooled connection
// goes back as it was.  The client must not be in a transaction already.
// Resolves to what fn resolves to; rolls back and rethrows if fn throws.
async function withSimilarityThreshold (client, s, fn) {
  checkThreshold(s)
  await client.query('BEGIN')
  try {
    await setSimilarityThreshold(client, s, { local: true })
    const result = await fn(client)
    await client.query('COMMIT')
    return result
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {})
    throw e
  }
}

// Text form of an array ('{a,b,NULL}', possibly nested or with bounds) -> nested arrays.
function parseArray (text, parseElement) {
  let i = text.startsWith('[') ? text.indexOf('=') + 1 : 0
  function level () {
    const out = []
    i++ // '{'
    while (text[i] !== '}') {
      if (text[i] === '{') {
        out.push(level())
      } else {
        let j = i
        while (text[j] !== ',' && text[j] !== '}') j++
        const item = text.slice(i, j)
        out.push(item === 'NULL' ? null : parseElement(item))
        i = j
      }
      if (text[i] === ',') i++
    }
    i++ // '}'
    return out
  }
  return level()
}

// The OIDs of an extension type (simhash, simhash128 or simhash256) and its
// array type in this database.  Extension types get their OIDs at CREATE
// EXTENSION time, so look them up on each database.
async function simhashOids (client, typname = 'simhash') {
  const { rows } = await client.query(
    `SELECT t.oid, t.typarray FROM pg_type t
       JOIN pg_depend d ON d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e'
       JOIN pg_extension e ON e.oid = d.refobjid
      WHERE e.extname = 'simhash' AND t.typname = $1`, [typname])
  if (rows.length !== 1) {
    throw new Error(typname === 'simhash'
      ? 'extension simhash is not installed in this database'
      : `type ${typname} not found: extension simhash 1.5 or later is not installed in this database`)
  }
  return { oid: Number(rows[0].oid), arrayOid: Number(rows[0].typarray) }
}

// Make simhash (and simhash[]) columns arrive as BigInt (unsigned) instead of hex strings.
//   registerSimhash(client)                    this client only (client.setTypeParser)
//   registerSimhash(pool, { types: pg.types }) every client of the process: a pool's
//                                              connections, clients made later
// Returns the OIDs.  Text results only: node-postgres decodes every result
// column as UTF-8, so its `binary: true` results cannot carry simhash bytes.
// A BigInt is no JSON value: JSON.stringify needs a replacer (bigIntToHex).
async function registerSimhash (client, options = {}) {
  const oids = await simhashOids(client)
  const types = options.types || client
  types.setTypeParser(oids.oid, 'text', hexToBigInt)
  types.setTypeParser(oids.arrayOid, 'text', (s) => parseArray(s, hexToBigInt))
  return oids
}

// The same for simhash128 / simhash256 columns (and their arrays): a BigInt,
// or with { as: 'buffer' } a Buffer of W/8 bytes (which keeps its width, so
// hamming and similarity need no bits).  Options as registerSimhash.
async function registerWide (bits, client, options) {
  const oids = await simhashOids(client, typeName(bits))
  const types = options.types || client
  const as = options.as || 'bigint'
  if (as !== 'bigint' && as !== 'buffer') throw new TypeError(`as: 'bigint' or 'buffer', not ${JSON.stringify(as)}`)
  const parse = as === 'buffer'
    ? (s) => { hexToBigInt(s, bits); return Buffer.from(s, 'hex') }
    : (s) => hexToBigInt(s, bits)
  types.setTypeParser(oids.oid, 'text', parse)
  types.setTypeParser(oids.arrayOid, 'text', (s) => parseArray(s, parse))
  return oids
}

// registerWide for simhash128 and simhash256.
function registerSimhash128 (client, options = {}) {
  return registerWide(128, client, options)
}

function registerSimhash256 (client, options = {}) {
  return registerWide(256, client, options)
}

module.exports = {
  WIDTHS,
  hexToBigInt,
  bigIntToHex,
  toUnsigned,
  toSigned,
  toBuffer,
  fromBuffer,
  words,
  hamming,
  similarity,
  radius,
  setSimilarityThreshold,
  withSimilarityThreshold,
  parseArray,
  simhashOids,
  registerSimhash,
  registerSimhash128,
  registerSimhash256
}
