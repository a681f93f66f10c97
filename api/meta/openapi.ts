import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';

export function createRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access token from POST /api/v1/auth/login, valid 900 seconds.',
  });
  return registry;
}

/** Section 9.3: OpenAPI 3.1.0, generated from the same zod schemas that validate requests. */
export function buildDocument(registry: OpenAPIRegistry): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Shade Office API',
      version: '1.0.0',
      description: 'Quoting, dispatch and integrations for window-shade contractors. Amounts are integer cents (CAD); exact decimals are strings.',
    },
  });
}
