/// A value under construction by the encoder.
///
/// Containers are reference boxes so that a container handed out earlier keeps writing into
/// the tree; ``finished()`` turns the whole structure into a ``JSONValue``.
enum EncodedNode {
    /// A finished value.
    case value(JSONValue)
    /// An array whose elements may still be added.
    case array(ArrayBox)
    /// An object whose members may still be added.
    case object(ObjectBox)
    /// The value a super encoder will have produced by the time the tree is finished.
    case deferred(ValueEncoder)

    /// The elements of an array under construction.
    final class ArrayBox {
        var nodes: [EncodedNode] = []
    }

    /// The members of an object under construction, in the order first encoded.
    final class ObjectBox {
        /// Objects with more members than this get a hash index for duplicate checks.
        private static let indexThreshold = 12

        private(set) var keys: [String] = []
        private(set) var nodes: [EncodedNode] = []
        private var index: [JSONKey: Int]?

        /// Sets the member `key`, keeping its first position when it is already present.
        func set(_ node: EncodedNode, for key: String) {
            if let position = position(of: key) {
                nodes[position] = node
                return
            }
            keys.append(key)
            nodes.append(node)
            if index != nil {
                index?[JSONKey(key)] = keys.count - 1
            } else if keys.count > Self.indexThreshold {
                var newIndex = [JSONKey: Int](minimumCapacity: keys.count * 2)
                for (position, existing) in keys.enumerated() {
                    newIndex[JSONKey(existing)] = position
                }
                index = newIndex
            }
        }

        private func position(of key: String) -> Int? {
            if let index {
                return index[JSONKey(key)]
            }
            return keys.firstIndex { JSONKey.equal($0, key) }
        }
    }

    /// The finished value; a super encoder that encoded nothing yields an empty object.
    func finished() -> JSONValue {
        switch self {
        case .value(let value):
            return value
        case .array(let box):
            return .array(box.nodes.map { $0.finished() })
        case .object(let box):
            var object = JSONObject(minimumCapacity: box.keys.count)
            for (key, node) in zip(box.keys, box.nodes) {
                object.appendNew(key: key, value: node.finished())
            }
            return .object(object)
        case .deferred(let encoder):
            return encoder.node?.finished() ?? .object(JSONObject())
        }
    }
}
