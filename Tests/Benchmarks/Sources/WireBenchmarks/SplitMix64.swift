/// A small pseudo-random generator with a fixed seed, so that every run, on every toolchain,
/// builds byte-identical inputs.
///
/// Only its own helpers are used to draw values; the standard library's range sampling may
/// change between releases.
struct SplitMix64 {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A value in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "the bound must be positive")
        return Int(next() % UInt64(bound))
    }

    /// A value in `range`.
    mutating func within(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// `true` with probability `1 / n`.
    mutating func oneIn(_ n: Int) -> Bool {
        below(n) == 0
    }

    /// An element of `choices`, which must not be empty.
    mutating func pick<Element>(_ choices: [Element]) -> Element {
        choices[below(choices.count)]
    }

    /// A finite, never integral double with a short exact decimal form: an odd number of
    /// sixteenths below `limit`, for example `98.5625`.
    ///
    /// Such values read back bit for bit in every parser, so both decoders must agree on them.
    mutating func sixteenths(below limit: Int) -> Double {
        Double(below(limit * 8) * 2 + 1) / 16
    }
}
