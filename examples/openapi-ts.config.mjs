// @hey-api/openapi-ts, a second generator independent of openapi-typescript: a fetch client, its
// SDK functions and the JSON Schemas of openapi.json, written to examples/generated-client
// (`npm run example:generated-client` regenerates it before compiling the program using it).
export default {
  input: 'openapi.json',
  output: { path: 'examples/generated-client', importFileExtension: '.js' },
  logs: { file: false },
  plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk', '@hey-api/schemas'],
};
