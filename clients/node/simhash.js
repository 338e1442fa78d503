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
// Versioned with the extension: simhash-pg X.Y.0 (package.json) is the client
// of extension X.Y (default_version in simhash.control; test/package checks
// that they agree).  It uses only the 64-bit simhash type, so it works with
// every extension version from 1.0 on; simhash128 and simhash256 columns
// (extension 1.5) arrive as their hex text.

const MASK64 = (1n << 64n) - 1n
const HEX16 = /^[0-9a-fA-F]{16}$/

// '16 hex digits' -> BigInt (unsigned).  Upper case is accepted, as by the server.
function hexToBigInt (hex) {
  if (typeof hex !== 'string' || !HEX16.test(hex)) {
    throw new TypeError(`invalid simhash text: ${JSON.stringify(hex)} (want 16 hex digits)`)
  }
  return BigInt('0x' + hex)
}

// BigInt (or a safe integer) -> 16 lower-case hex digits.  Negative values in
// -2^63 .. -1 are read as two's complement, like the server's bigint cast.
function bigIntToHex (value) {
  return toUnsigned(value).toString(16).padStart(16, '0')
}

// A fingerprint as hex text, a BigInt or a safe integer -> BigInt in 0 .. 2^64-1;
// negative values are two's complement.  pg returns a bigint column as a decimal
// string: pass BigInt(row.x), as a string here is always hex.
function toUnsigned (value) {
  if (typeof value === 'string') {
    value = hexToBigInt(value)
  } else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integer: ${value}`)
    value = BigInt(value)
  } else if (typeof value !== 'bigint') {
    throw new TypeError(`not a simhash value: ${typeof value}`)
  }
  if (value < -(1n << 63n) || value > MASK64) {
    throw new RangeError(`${value} does not fit in 64 bits`)
  }
  return BigInt.asUintN(64, value)
}

// The same 64 bits as a signed BigInt, for a bigint parameter: `$1::bigint::simhash`.
function toSigned (value) {
  return BigInt.asIntN(64, toUnsigned(value))
}

// 8 bytes, big-endian: the binary form (simhash_send/simhash_recv).  node-postgres
// sends a Buffer parameter in binary, so `fp <-> $1` with a Buffer reads it as simhash.
function toBuffer (value) {
  const buf = Buffer.alloc(8)
  buf.writeBigUInt64BE(toUnsigned(value))
  return buf
}

// Hamming distance, 0..64, as the server's `a <-> b`.
function hamming (a, b) {
  let x = toUnsigned(a) ^ toUnsigned(b)
  let n = 0
  while (x) { x &= x - 1n; n++ }
  return n
}

// Text form of simhash[] ('{a,b,NULL}', possibly nested or with bounds) -> nested arrays.
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

// The OIDs of the simhash type and its array type in this database.  Extension
// types get their OIDs at CREATE EXTENSION time, so look them up on each database.
async function simhashOids (client) {
  const { rows } = await client.query(
    `SELECT t.oid, t.typarray FROM pg_type t
       JOIN pg_depend d ON d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e'
       JOIN pg_extension e ON e.oid = d.refobjid
      WHERE e.extname = 'simhash' AND t.typname = 'simhash'`)
  if (rows.length !== 1) throw new Error('extension simhash is not installed in this database')
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

module.exports = {
  hexToBigInt,
  bigIntToHex,
  toUnsigned,
  toSigned,
  toBuffer,
  hamming,
  parseArray,
  simhashOids,
  registerSimhash
}
