/// A growable stack of values shared by all nesting levels of one parse.
///
/// Each array or object being read remembers where its elements start, pushes them as they
/// arrive, and finally moves them, without copying or reference counting, into an array of
/// exactly the right size. Reusing one stack avoids growing a fresh array per container.
struct ElementStack<Element>: ~Copyable {
    private var storage: UnsafeMutablePointer<Element>
    private var capacity: Int

    /// The number of elements on the stack.
    private(set) var count: Int

    init(initialCapacity: Int) {
        capacity = max(initialCapacity, 1)
        storage = .allocate(capacity: capacity)
        count = 0
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// Pushes an element.
    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity {
            grow()
        }
        (storage + count).initialize(to: element)
        count &+= 1
    }

    /// The element at an absolute position, for in-place updates.
    @inline(__always)
    subscript(position: Int) -> Element {
        unsafeAddress {
            UnsafePointer(storage + position)
        }
        unsafeMutableAddress {
            storage + position
        }
    }

    /// Calls `body` with the elements from `start` to the top of the stack.
    @inline(__always)
    func withElements<Result>(
        from start: Int,
        _ body: (UnsafeBufferPointer<Element>) -> Result
    ) -> Result {
        body(UnsafeBufferPointer(start: storage + start, count: count &- start))
    }

    /// Moves the elements from `start` to the top of the stack into a new array, leaving the
    /// stack `start` elements deep.
    @inline(__always)
    mutating func popArray(from start: Int) -> [Element] {
        let length = count &- start
        var result: [Element] = []
        if length == 0 {
            return result
        }
        // Reserving capacity, unlike the uninitialized-capacity initialiser, allocates through
        // code specialised for `Element`, which avoids a run-time metadata look-up per array.
        result.reserveCapacity(length)
        let source = storage + start
        for offset in 0..<length {
            result.append((source + offset).move())
        }
        count = start
        return result
    }

    @inline(never)
    private mutating func grow() {
        let newCapacity = capacity &* 2
        let newStorage = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newStorage.moveInitialize(from: storage, count: count)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }
}
