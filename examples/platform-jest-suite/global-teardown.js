// jest's globalTeardown: stops the shared service and removes its temporary directory.
module.exports = require('grc-integration-api/testing').globalTeardown;
