/// A growable stack of values shared by all nesting levels of one parse.
///
/// Each array or object being read remembers where its elements start, pushes them as they
/// arrive, and finally moves them, without copying or reference counting, into an array of
/// exactly the right size. Reusing one stack avoids growing a fresh array per container.
///
/// The stack can start in memory lent by the caller (a small buffer on the machine stack, so
/// that parsing a small document allocates nothing for it); it moves to the heap when it
/// outgrows that memory. Without lent memory, storage is allocated on the first push.
struct ElementStack<Element>: ~Copyable {
    private var storage: UnsafeMutablePointer<Element>?
    private var capacity: Int
    private var ownsStorage: Bool
    private let initialCapacity: Int

    /// The number of elements on the stack.
    private(set) var count: Int

    /// Creates an empty stack that starts in `buffer`, which must stay valid and otherwise
    /// unused for the stack's lifetime; the stack never frees it.
    init(buffer: UnsafeMutableBufferPointer<Element>, initialCapacity: Int) {
        storage = buffer.count > 0 ? buffer.baseAddress : nil
        capacity = storage == nil ? 0 : buffer.count
        ownsStorage = false
        self.initialCapacity = max(initialCapacity, 1)
        count = 0
    }

    deinit {
        if let storage {
            storage.deinitialize(count: count)
            if ownsStorage {
                storage.deallocate()
            }
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
        let length = count &- start
        guard length > 0 else {
            return []
        }
        let source = elements + start
        count = start
        // Short arrays are built as literals of moved elements, the cheapest way to allocate
        // an array; longer ones by reserving capacity.
        switch length {
        case 1:
            return [source.move()]
        case 2:
            return [source.move(), (source + 1).move()]
        case 3:
            return [source.move(), (source + 1).move(), (source + 2).move()]
        case 4:
            return [source.move(), (source + 1).move(), (source + 2).move(), (source + 3).move()]
        default:
            var result: [Element] = []
            result.reserveCapacity(length)
            for offset in 0..<length {
                result.append((source + offset).move())
            }
            return result
        }
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
        let newCapacity = max(capacity &* 2, initialCapacity)
        let newStorage = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let storage {
            newStorage.moveInitialize(from: storage, count: count)
            if ownsStorage {
                storage.deallocate()
            }
        }
        storage = newStorage
        capacity = newCapacity
        ownsStorage = true
    }
}
