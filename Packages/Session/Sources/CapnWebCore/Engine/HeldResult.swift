/// What the hook of a push holds for the peer: a result known already, or one still being
/// computed (whose size can only be counted once it settles).
enum HeldResult {
    case settled(Settlement)
    case computing(LocalPromiseHook)

    /// The result `hook` stands for; `nil` for hooks that hold no value of their own here (a
    /// target, a remote entry, a call not sent yet).
    init?(of hook: any StubHook) {
        switch hook {
        case let payload as PayloadHook:
            self = .settled(.success(payload.value))
        case let error as ErrorHook:
            self = .settled(.failure(error.rejection))
        case let promise as LocalPromiseHook:
            if let settlement = promise.current {
                self = .settled(settlement)
            } else {
                self = .computing(promise)
            }
        default:
            return nil
        }
    }
}
