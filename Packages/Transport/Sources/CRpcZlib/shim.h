#ifndef C_RPC_ZLIB_SHIM_H
#define C_RPC_ZLIB_SHIM_H

#include <zlib.h>

/// deflateInit2 is a macro; Swift sees this function instead.
static inline int c_rpc_deflateInit2(z_streamp stream, int level, int windowBits, int memLevel) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}

/// inflateInit2 is a macro; Swift sees this function instead.
static inline int c_rpc_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
