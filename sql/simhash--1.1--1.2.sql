/* simhash--1.1--1.2.sql: update from 1.1 to 1.2 */

\echo Use "ALTER EXTENSION simhash UPDATE TO '1.2'" to load this file. \quit

-- 1.2 adds functions only; fingerprints, operators and index layouts of 1.1
-- are unchanged, so existing indexes stay valid.
