/// What the hook of a push holds for the peer: a result known already, or one still being
/// computed (whose size can only be counted once it settles).
enum HeldResult {
    case settled(Settlement)
    case computing(LocalPromiseHook)

    /// The result `hook` stands for; `nil` for hooks that hold no value of their own here (a
    /// target, a remote entry, a call not sent yet). Asked of the hook itself (a protocol
    /// requirement), so that every push costs no dynamic casts.
    init?(of hook: any StubHook) {
        guard let held = hook.heldResult else { return nil }
        self = held
    }
}
