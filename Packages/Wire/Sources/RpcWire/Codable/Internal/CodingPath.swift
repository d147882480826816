/// A coding path kept as a chain of parent links, turned into `[any CodingKey]` only when
/// someone asks for it (a `codingPath` property or an error).
///
/// A trailing array position is held inline and costs nothing; keys, and positions that get
/// something appended after them, are stored in nodes. Elements of an array of objects
/// therefore get their paths for free, and passing, saving and restoring a path costs one
/// reference count at most.
struct CodingPath {
    /// One step of a path.
    enum Component {
        /// A key of a keyed container.
        case key(any CodingKey)
        /// A position in an unkeyed container, shown as `Index N`.
        case index(Int)

        /// The component as a coding key.
        var codingKey: any CodingKey {
            switch self {
            case .key(let key): key
            case .index(let index): WireCodingKey(index: index)
            }
        }
    }

    /// A component with a link to the components before it.
    final class Node {
        let parent: Node?
        let component: Component
        let count: Int

        init(parent: Node?, component: Component) {
            self.parent = parent
            self.component = component
            self.count = (parent?.count ?? 0) + 1
        }
    }

    /// The components before ``trailingIndex``, or all of them when there is none.
    private let node: Node?
    /// A last component that is an array position, or -1.
    private let trailingIndex: Int

    private init(node: Node?, trailingIndex: Int) {
        self.node = node
        self.trailingIndex = trailingIndex
    }

    /// The empty path.
    static var root: CodingPath { CodingPath(node: nil, trailingIndex: -1) }

    /// This path followed by `component`.
    func appending(_ component: Component) -> CodingPath {
        let base = trailingIndex >= 0 ? Node(parent: node, component: .index(trailingIndex)) : node
        switch component {
        case .index(let index) where index >= 0:
            return CodingPath(node: base, trailingIndex: index)
        default:
            return CodingPath(node: Node(parent: base, component: component), trailingIndex: -1)
        }
    }

    /// This path followed by `key`.
    func appending(key: some CodingKey) -> CodingPath {
        appending(.key(key))
    }

    /// The path as coding keys.
    var keys: [any CodingKey] {
        keys(appending: nil)
    }

    /// The path followed by `extra`, as coding keys.
    func keys(appending extra: Component?) -> [any CodingKey] {
        let count = (node?.count ?? 0) + (trailingIndex >= 0 ? 1 : 0) + (extra == nil ? 0 : 1)
        var result = [any CodingKey]()
        result.reserveCapacity(count)
        var reversed: [Component] = []
        reversed.reserveCapacity(count)
        var current = node
        while let step = current {
            reversed.append(step.component)
            current = step.parent
        }
        for component in reversed.reversed() {
            result.append(component.codingKey)
        }
        if trailingIndex >= 0 {
            result.append(WireCodingKey(index: trailingIndex))
        }
        if let extra {
            result.append(extra.codingKey)
        }
        return result
    }

    /// The path followed by `key`, as coding keys.
    func keys(appending key: some CodingKey) -> [any CodingKey] {
        keys(appending: .key(key))
    }

    /// The path followed by the position `index`, as coding keys.
    func keys(appendingIndex index: Int) -> [any CodingKey] {
        keys(appending: .index(index))
    }
}
