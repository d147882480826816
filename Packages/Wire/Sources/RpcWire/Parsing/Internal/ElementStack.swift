/// A growable stack of values shared by all nesting levels of one parse.
///
/// Each array or object being read remembers where its elements start, pushes them as they
/// arrive, and finally moves them, without copying or reference counting, into an array of
/// exactly the right size. Reusing one stack avoids growing a fresh array per container.
///
/// Storage is allocated on the first push, so a parse that never needs the stack never pays
/// for it.
struct ElementStack<Element>: ~Copyable {
    private var storage: UnsafeMutablePointer<Element>?
    private var capacity: Int
    private let initialCapacity: Int

    /// The number of elements on the stack.
    private(set) var count: Int

    init(initialCapacity: Int) {
        storage = nil
        capacity = 0
        self.initialCapacity = max(initialCapacity, 1)
        count = 0
    }

    deinit {
        if let storage {
            storage.deinitialize(count: count)
            storage.deallocate()
        }
    }

    /// The storage, which exists whenever the stack has held an element.
    @inline(__always)
    private var elements: UnsafeMutablePointer<Element> {
        storage.unsafelyUnwrapped
    }

    /// Pushes an element.
    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity {
            grow()
        }
        (elements + count).initialize(to: element)
        count &+= 1
    }

    /// The element at an absolute position, for in-place updates.
    @inline(__always)
    subscript(position: Int) -> Element {
        unsafeAddress {
            UnsafePointer(elements + position)
        }
        unsafeMutableAddress {
            elements + position
        }
    }

    /// Calls `body` with the elements from `start` to the top of the stack.
    @inline(__always)
    func withElements<Result>(
        from start: Int,
        _ body: (UnsafeBufferPointer<Element>) -> Result
    ) -> Result {
        guard count > start else {
            return body(UnsafeBufferPointer(start: nil, count: 0))
        }
        return body(UnsafeBufferPointer(start: elements + start, count: count &- start))
    }

    /// Moves the elements from `start` to the top of the stack into a new array, leaving the
    /// stack `start` elements deep.
    @inline(__always)
    mutating func popArray(from start: Int) -> [Element] {
        popArray(from: start) { $0 }
    }

    /// Moves the elements from `start` to the top of the stack, each transformed by
    /// `transform`, into a new array, leaving the stack `start` elements deep.
    @inline(__always)
    mutating func popArray<Result>(
        from start: Int,
        _ transform: (consuming Element) -> Result
    ) -> [Result] {
        let length = count &- start
        var result: [Result] = []
        if length == 0 {
            return result
        }
        // Reserving capacity, unlike the uninitialized-capacity initialiser, allocates through
        // code specialised for the element type, which avoids a run-time metadata look-up per
        // array.
        result.reserveCapacity(length)
        let source = elements + start
        for offset in 0..<length {
            result.append(transform((source + offset).move()))
        }
        count = start
        return result
    }

    @inline(never)
    private mutating func grow() {
        let newCapacity = capacity == 0 ? initialCapacity : capacity &* 2
        let newStorage = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let storage {
            newStorage.moveInitialize(from: storage, count: count)
            storage.deallocate()
        }
        storage = newStorage
        capacity = newCapacity
    }
}
