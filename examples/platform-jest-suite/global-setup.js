// jest's globalSetup: ONE service for every suite of the run (its address goes to the workers).
// DATABASE_URL set: the service uses that PostgreSQL (migrated first); unset: an embedded one.
module.exports = require('grc-integration-api/testing').globalSetup({
  databaseUrl: process.env.DATABASE_URL || undefined,
});
