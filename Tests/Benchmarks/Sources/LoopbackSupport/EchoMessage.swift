/// The message the bare echo carries: ASCII text shaped like a Cap'n Web push.
public enum EchoMessage {
    /// `["push",["pipeline",1,["echo"],["the quick brown fox …"]]]`, exactly `size` bytes (at
    /// least the 40 bytes of its frame).
    public static func pushShaped(size: Int) -> [UInt8] {
        let head = Array(#"["push",["pipeline",1,["echo"],[""#.utf8)
        let tail = Array(#""]]]"#.utf8)
        let filler = Array("the quick brown fox jumps over the lazy dog ".utf8)
        var bytes = head
        var index = 0
        while bytes.count + tail.count < size {
            bytes.append(filler[index % filler.count])
            index += 1
        }
        return bytes + tail
    }
}
