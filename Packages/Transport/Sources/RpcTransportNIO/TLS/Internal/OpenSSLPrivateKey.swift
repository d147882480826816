import CRpcOpenSSL

/// A private key owned by Swift; the `EVP_PKEY` object is freed once, in `deinit`.
final class OpenSSLPrivateKey {
    /// The `EVP_PKEY` object. Valid for the lifetime of this instance; never free it.
    let pointer: OpaquePointer

    /// Takes ownership of one reference to `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }
}
