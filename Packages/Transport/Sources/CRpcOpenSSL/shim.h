#ifndef C_RPC_OPENSSL_SHIM_H
#define C_RPC_OPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/evp.h>
#include <openssl/bio.h>
#include <openssl/rand.h>

// Function wrappers for OpenSSL macros, which Swift cannot import directly.

/// Sets the lowest protocol version a context negotiates (for example TLS1_2_VERSION); 1 on success.
static inline int CRpcSSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

/// Sets the highest protocol version a context negotiates; 1 on success.
static inline int CRpcSSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}

/// Turns off TLS compression and renegotiation, which a memory-BIO driven connection never needs.
static inline void CRpcSSL_CTX_apply_default_options(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
}

/// Lets SSL_write be retried with a buffer at a different address after a WANT_READ or WANT_WRITE.
static inline void CRpcSSL_CTX_apply_default_modes(SSL_CTX *ctx) {
    SSL_CTX_set_mode(ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

/// Adds a certificate (a reference is taken) to the chain a context presents; 1 on success.
static inline int CRpcSSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *certificate) {
    return (int)SSL_CTX_add1_chain_cert(ctx, certificate);
}

/// Sets the server name indication a client sends; 1 on success.
static inline int CRpcSSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// Sets what reading an empty memory BIO returns; -1 makes it ask to retry rather than report EOF.
static inline void CRpcBIO_set_mem_eof_return(BIO *bio, int value) {
    (void)BIO_set_mem_eof_return(bio, value);
}

#endif
