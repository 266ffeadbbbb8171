// Swagger UI over our own OpenAPI document; "Authorize" takes an API key (x-api-key) for "Try it out".
window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: true,
  persistAuthorization: false,
  defaultModelsExpandDepth: 0,
  docExpansion: 'list',
});
