// Validates an OpenAPI document with @apidevtools/swagger-parser: the document against
// the OpenAPI 3.1 schema, every $ref resolved, operation ids and path parameters checked.
//   node validate_openapi.js docs/api/openapi.json
const SwaggerParser = require('@apidevtools/swagger-parser');

const file = process.argv[2];
SwaggerParser.validate(file)
    .then((api) => {
      const operations = Object.values(api.paths).flatMap(
          (item) =>
              Object.keys(item).filter((key) => ['get', 'post', 'put', 'delete'].includes(key)));
      console.log(
          `${file}: valid OpenAPI ${api.openapi}, ${Object.keys(api.paths).length} paths, ` +
          `${operations.length} operations`);
    })
    .catch((error) => {
      console.error(`FAIL: ${file}: ${error.message}`);
      process.exit(1);
    });
