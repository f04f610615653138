declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  interface SwaggerUI { preauthorizeApiKey(name: string, value: string): void }
  export const SwaggerUIBundle: (options: Record<string, unknown>) => SwaggerUI;
}
