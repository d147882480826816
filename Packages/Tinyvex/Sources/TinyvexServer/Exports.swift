// The pagination vocabulary a schema's queries use (`paginationOpts` in their params, the page
// they return), so that `import TinyvexServer` is enough to name it.
@_exported public import struct TinyvexProtocol.TinyvexPaginationOptions
@_exported public import struct TinyvexProtocol.TinyvexPaginationResult
