/// The reference wire transcript (`shared/conformance/capnweb/reference-wire-transcript.log`):
/// every frame exchanged between the reference client and server (cloudflare/capnweb 0.12.0),
/// over WebSocket (`[ws#N] <-` is client to server, `->` server to client) and one HTTP batch.
/// Embedded so the tests do not depend on files outside the package.
///
/// ```swift
/// for run in ReferenceTranscript.runs(ReferenceTranscript.segment("ws#1")) {
///     if run.toServer { for frame in run.frames { try peer.send(frame) } }
/// }
/// ```
public enum ReferenceTranscript {
    /// One frame of a WebSocket segment.
    public struct Frame: Sendable, Equatable {
        /// Client to server (`<-`) or server to client (`->`).
        public let toServer: Bool
        /// The frame's exact JSON text.
        public let text: String
    }

    /// Consecutive frames in one direction.
    public struct Run: Sendable {
        /// Client to server (`<-`) or server to client (`->`).
        public let toServer: Bool
        /// The frames' exact JSON texts, in transcript order.
        public var frames: [String]
    }

    /// The frames of `[ws#N]`, in transcript order (the open, close and the abort the
    /// reference tries to send after the peer closed are not frames of the session).
    public static func segment(_ name: String) -> [Frame] {
        var frames: [Frame] = []
        let prefix = "[\(name)] "
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) where line.hasPrefix(prefix) {
            let rest = line.dropFirst(prefix.count)
            if rest.hasPrefix("<- ") {
                frames.append(Frame(toServer: true, text: String(rest.dropFirst(3))))
            } else if rest.hasPrefix("-> ") {
                frames.append(Frame(toServer: false, text: String(rest.dropFirst(3))))
            } else if rest.hasPrefix("close") {
                break
            }
        }
        return frames
    }

    /// Groups frames into runs of one direction.
    public static func runs(_ frames: [Frame]) -> [Run] {
        var runs: [Run] = []
        for frame in frames {
            if let last = runs.last, last.toServer == frame.toServer {
                runs[runs.count - 1].frames.append(frame.text)
            } else {
                runs.append(Run(toServer: frame.toServer, frames: [frame.text]))
            }
        }
        return runs
    }

    /// The HTTP batch: request lines and response lines.
    public static var batch: (request: [String], response: [String]) {
        var request: [String] = []
        var response: [String] = []
        var section = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("[batch /rpc] request") {
                section = 1
            } else if line.hasPrefix("[batch /rpc] response") {
                section = 2
            } else if line.hasPrefix("[ws#") || line.hasPrefix("[batch") {
                section = 0
            } else if section == 1 {
                request.append(String(line))
            } else if section == 2 {
                response.append(String(line))
            }
        }
        return (request, response)
    }

    /// The transcript, verbatim.
    public static let text = #"""
[ws#1] open /ws
[ws#1] <- ["push",["pipeline",0,["square"],[5]]]
[ws#1] <- ["pull",1]
[ws#1] -> ["resolve",1,25]
[ws#1] <- ["release",1,1]
[ws#1] <- ["push",["pipeline",0,["add"],[2,3]]]
[ws#1] <- ["pull",2]
[ws#1] -> ["resolve",2,5]
[ws#1] <- ["release",2,1]
[ws#1] <- ["push",["pipeline",0,["echo"],[{"a":[[1,"x",null,true]],"d":0}]]]
[ws#1] <- ["pull",3]
[ws#1] -> ["resolve",3,{"a":[[1,"x",null,true]],"d":0}]
[ws#1] <- ["release",3,1]
[ws#1] <- ["push",["pipeline",0,["echo"],[[[["date",5],["bigint","12345678901234567890"],["bytes","AQID"],["undefined"],["inf"],["-inf"]]]]]]
[ws#1] <- ["pull",4]
[ws#1] -> ["resolve",4,[[["date",5],["bigint","12345678901234567890"],["bytes","AQID"],["undefined"],["inf"],["-inf"]]]]
[ws#1] <- ["release",4,1]
[ws#1] <- ["push",["pipeline",0,["echo"],[["nan"]]]]
[ws#1] <- ["pull",5]
[ws#1] -> ["resolve",5,["nan"]]
[ws#1] <- ["release",5,1]
[ws#1] <- ["push",["pipeline",0,["getUser"],[42]]]
[ws#1] <- ["push",["pipeline",6,["profile","displayName"]]]
[ws#1] <- ["pull",7]
[ws#1] -> ["resolve",7,"User 42"]
[ws#1] <- ["release",7,1]
[ws#1] <- ["push",["pipeline",0,["add"],[2,3]]]
[ws#1] <- ["push",["pipeline",0,["square"],[["pipeline",8]]]]
[ws#1] <- ["pull",9]
[ws#1] -> ["resolve",9,25]
[ws#1] <- ["release",9,1]
[ws#1] <- ["push",["pipeline",0,["makeCounter"],[10]]]
[ws#1] <- ["push",["pipeline",10,["increment"],[5]]]
[ws#1] <- ["pull",11]
[ws#1] -> ["resolve",11,15]
[ws#1] <- ["release",11,1]
[ws#1] <- ["push",["pipeline",10,["value"]]]
[ws#1] <- ["pull",12]
[ws#1] -> ["resolve",12,15]
[ws#1] <- ["release",12,1]
[ws#1] <- ["push",["pipeline",0,["incrementCounter"],[["pipeline",10],2]]]
[ws#1] <- ["pull",13]
[ws#1] -> ["resolve",13,17]
[ws#1] <- ["release",13,1]
[ws#1] <- ["push",["pipeline",0,["callback"],[["export",-1],21]]]
[ws#1] -> ["push",["pipeline",-1,[],[21]]]
[ws#1] -> ["pull",1]
[ws#1] <- ["pull",14]
[ws#1] <- ["resolve",1,42]
[ws#1] -> ["release",1,1]
[ws#1] -> ["release",-1,1]
[ws#1] -> ["resolve",14,42]
[ws#1] <- ["release",14,1]
[ws#1] <- ["push",["pipeline",0,["throwError"],["boom"]]]
[ws#1] <- ["pull",15]
[ws#1] -> ["reject",15,["error","Error","boom"]]
[ws#1] <- ["release",15,1]
[ws#1] <- ["push",["pipeline",0,["throwTypeError"],["bad"]]]
[ws#1] <- ["pull",16]
[ws#1] -> ["reject",16,["error","TypeError","bad"]]
[ws#1] <- ["release",16,1]
[ws#1] <- ["push",["pipeline",0,["generateFibonacci"],[10]]]
[ws#1] <- ["pull",17]
[ws#1] -> ["resolve",17,[[0,1,1,2,3,5,8,13,21,34]]]
[ws#1] <- ["release",17,1]
[ws#1] <- ["push",["pipeline",0,["generateFibonacci"],[6]]]
[ws#1] <- ["push",["remap",18,[],[["import",0]],[["pipeline",-1,["square"],[["pipeline",0]]],["pipeline",1]]]]
[ws#1] <- ["pull",19]
[ws#1] -> ["resolve",19,[[["promise",-1],["promise",-2],["promise",-3],["promise",-4],["promise",-5],["promise",-6]]]]
[ws#1] -> ["resolve",-1,0]
[ws#1] -> ["resolve",-2,1]
[ws#1] -> ["resolve",-3,1]
[ws#1] -> ["resolve",-4,4]
[ws#1] -> ["resolve",-5,9]
[ws#1] -> ["resolve",-6,25]
[ws#1] <- ["release",19,1]
[ws#1] <- ["release",-1,1]
[ws#1] <- ["release",-2,1]
[ws#1] <- ["release",-3,1]
[ws#1] <- ["release",-4,1]
[ws#1] <- ["release",-5,1]
[ws#1] <- ["release",-6,1]
[ws#1] <- ["push",["pipeline",0,["generateFibonacci"],[3]]]
[ws#1] <- ["push",["remap",20,[],[["import",0]],[["pipeline",-1,["getUser"],[["pipeline",0]]],{"x":["pipeline",0],"u":["pipeline",1,["profile","displayName"]]}]]]
[ws#1] <- ["pull",21]
[ws#1] -> ["resolve",21,[[{"x":["promise",-7],"u":["promise",-8]},{"x":["promise",-9],"u":["promise",-10]},{"x":["promise",-11],"u":["promise",-12]}]]]
[ws#1] -> ["resolve",-7,0]
[ws#1] -> ["resolve",-9,1]
[ws#1] -> ["resolve",-11,1]
[ws#1] -> ["resolve",-8,"User 0"]
[ws#1] -> ["resolve",-10,"User 1"]
[ws#1] -> ["resolve",-12,"User 1"]
[ws#1] <- ["release",21,1]
[ws#1] <- ["release",-7,1]
[ws#1] <- ["release",-9,1]
[ws#1] <- ["release",-11,1]
[ws#1] <- ["release",-8,1]
[ws#1] <- ["release",-10,1]
[ws#1] <- ["release",-12,1]
[ws#1] <- ["push",["pipeline",0,["returnNull"],[]]]
[ws#1] <- ["push",["remap",22,[],[["import",0]],[["pipeline",-1,["square"],[["pipeline",0]]],["pipeline",1]]]]
[ws#1] <- ["pull",23]
[ws#1] -> ["resolve",23,null]
[ws#1] <- ["release",23,1]
[batch /rpc] request:
["push",["pipeline",0,["square"],[7]]]
["push",["pipeline",0,["getUser"],[7]]]
["push",["pipeline",0,["add"],[1,2]]]
["push",["pipeline",0,["square"],[["pipeline",3]]]]
["push",["pipeline",0,["generateFibonacci"],[5]]]
["push",["remap",5,[],[["import",0]],[["pipeline",-1,["add"],[["pipeline",0],100]],["pipeline",1]]]]
["push",["pipeline",0,["throwError"],["batch boom"]]]
["pull",7]
["push",["pipeline",0,["makeCounter"],[1]]]
["push",["pipeline",8,["increment"],[4]]]
["pull",1]
["push",["pipeline",2,["profile","displayName"]]]
["pull",10]
["pull",4]
["pull",6]
["pull",9]
[batch /rpc] response 200:
["reject",7,["error","Error","batch boom"]]
["resolve",1,49]
["resolve",10,"User 7"]
["resolve",4,9]
["resolve",6,[[["promise",-1],["promise",-2],["promise",-3],["promise",-4],["promise",-5]]]]
["resolve",9,5]
["resolve",-1,100]
["resolve",-2,101]
["resolve",-3,101]
["resolve",-4,102]
["resolve",-5,103]
[ws#1] close 3000 RPC session was shut down by disposing the main stub
[ws#1] -> ["abort",["error","Error","Peer closed WebSocket: 3000 RPC session was shut down by disposing the main stub"]]
[ws#2] open /ws
[ws#2] <- ["push",["pipeline",0,["echo"],["----local promise as arg"]]]
[ws#2] <- ["pull",1]
[ws#2] -> ["resolve",1,"----local promise as arg"]
[ws#2] <- ["release",1,1]
[ws#2] <- ["push",["pipeline",0,["echo"],[["promise",-1]]]]
[ws#2] <- ["pull",2]
[ws#2] <- ["resolve",-1,5]
[ws#2] -> ["release",-1,1]
[ws#2] -> ["resolve",2,5]
[ws#2] <- ["release",2,1]
[ws#2] <- ["push",["pipeline",0,["echo"],["----dispose counter"]]]
[ws#2] <- ["pull",3]
[ws#2] -> ["resolve",3,"----dispose counter"]
[ws#2] <- ["release",3,1]
[ws#2] <- ["push",["pipeline",0,["makeCounter"],[3]]]
[ws#2] <- ["pull",4]
[ws#2] -> ["resolve",4,["export",-1]]
[ws#2] <- ["release",4,1]
[ws#2] <- ["push",["pipeline",-1,["increment"],[]]]
[ws#2] <- ["pull",5]
[ws#2] -> ["resolve",5,4]
[ws#2] <- ["release",5,1]
[ws#2] <- ["release",-1,1]
[ws#2] <- ["push",["pipeline",0,["echo"],["----dup + dispose"]]]
[ws#2] <- ["pull",6]
[ws#2] -> ["resolve",6,"----dup + dispose"]
[ws#2] <- ["release",6,1]
[ws#2] <- ["push",["pipeline",0,["makeCounter"],[3]]]
[ws#2] <- ["push",["pipeline",7,[]]]
[ws#2] <- ["push",["pipeline",8,["value"]]]
[ws#2] <- ["pull",9]
[ws#2] -> ["resolve",9,3]
[ws#2] <- ["release",9,1]
[ws#2] <- ["release",8,1]
[ws#2] <- ["release",7,1]
[ws#2] <- ["push",["pipeline",0,["echo"],["----map with client capture"]]]
[ws#2] <- ["pull",10]
[ws#2] -> ["resolve",10,"----map with client capture"]
[ws#2] <- ["release",10,1]
[ws#2] <- ["push",["pipeline",0,["generateFibonacci"],[3]]]
[ws#2] <- ["push",["remap",11,[],[["export",-2]],[["pipeline",-1,[],[["pipeline",0]]],["pipeline",1]]]]
[ws#2] -> ["push",["pipeline",-2,[],[["promise",-2]]]]
[ws#2] -> ["push",["pipeline",1,[]]]
[ws#2] -> ["release",1,1]
[ws#2] -> ["push",["pipeline",-2,[],[["promise",-3]]]]
[ws#2] -> ["push",["pipeline",3,[]]]
[ws#2] -> ["release",3,1]
[ws#2] -> ["push",["pipeline",-2,[],[["promise",-4]]]]
[ws#2] -> ["push",["pipeline",5,[]]]
[ws#2] -> ["release",5,1]
[ws#2] -> ["release",-2,1]
[ws#2] -> ["resolve",-2,0]
[ws#2] -> ["resolve",-3,1]
[ws#2] -> ["resolve",-4,1]
[ws#2] <- ["pull",12]
[ws#2] -> ["resolve",12,[[["pipeline",2],["pipeline",4],["pipeline",6]]]]
[ws#2] <- ["release",-2,1]
[ws#2] <- ["release",-3,1]
[ws#2] <- ["release",-4,1]
[ws#2] <- ["release",12,1]
[ws#2] -> ["release",2,1]
[ws#2] -> ["release",4,1]
[ws#2] -> ["release",6,1]
[ws#2] <- ["push",["pipeline",0,["echo"],["----nested map"]]]
[ws#2] <- ["pull",13]
[ws#2] -> ["resolve",13,"----nested map"]
[ws#2] <- ["release",13,1]
[ws#2] <- ["push",["pipeline",0,["generateFibonacci"],[4]]]
[ws#2] <- ["push",["remap",14,[],[["import",0],["import",0]],[["pipeline",-1,["generateFibonacci"],[["pipeline",0]]],["remap",1,[],[["import",-2]],[["pipeline",-1,["square"],[["pipeline",0]]],["pipeline",1]]],["pipeline",2]]]]
[ws#2] <- ["pull",15]
[ws#2] -> ["resolve",15,[[["promise",-5],["promise",-6],["promise",-7],["promise",-8]]]]
[ws#2] -> ["resolve",-5,[[]]]
[ws#2] -> ["resolve",-6,[[["promise",-9]]]]
[ws#2] -> ["resolve",-7,[[["promise",-10]]]]
[ws#2] -> ["resolve",-8,[[["promise",-11],["promise",-12]]]]
[ws#2] -> ["resolve",-9,0]
[ws#2] -> ["resolve",-10,0]
[ws#2] -> ["resolve",-11,0]
[ws#2] -> ["resolve",-12,1]
[ws#2] <- ["release",15,1]
[ws#2] <- ["release",-5,1]
[ws#2] <- ["release",-6,1]
[ws#2] <- ["release",-7,1]
[ws#2] <- ["release",-8,1]
[ws#2] <- ["release",-9,1]
[ws#2] <- ["release",-10,1]
[ws#2] <- ["release",-11,1]
[ws#2] <- ["release",-12,1]
[ws#2] <- ["push",["pipeline",0,["echo"],["----map over RpcTargets"]]]
[ws#2] <- ["pull",16]
[ws#2] -> ["resolve",16,"----map over RpcTargets"]
[ws#2] <- ["release",16,1]
[ws#2] <- ["push",["pipeline",0,["makeUsers"],[2]]]
[ws#2] <- ["push",["remap",17,[],[],[["pipeline",0,["profile","displayName"]]]]]
[ws#2] <- ["pull",18]
[ws#2] -> ["resolve",18,[[["promise",-13],["promise",-14]]]]
[ws#2] -> ["resolve",-13,"User 1"]
[ws#2] -> ["resolve",-14,"User 2"]
[ws#2] <- ["release",18,1]
[ws#2] <- ["release",-13,1]
[ws#2] <- ["release",-14,1]
[ws#2] <- ["push",["pipeline",0,["echo"],["----readable returned"]]]
[ws#2] <- ["pull",19]
[ws#2] -> ["resolve",19,"----readable returned"]
[ws#2] <- ["release",19,1]
[ws#2] <- ["push",["pipeline",0,["makeStream"],[3]]]
[ws#2] <- ["pull",20]
[ws#2] -> ["pipe"]
[ws#2] -> ["resolve",20,["readable",7]]
[ws#2] -> ["stream",["pipeline",7,["write"],[0]]]
[ws#2] -> ["stream",["pipeline",7,["write"],[1]]]
[ws#2] -> ["stream",["pipeline",7,["write"],[2]]]
[ws#2] -> ["stream",["pipeline",7,["close"],[]]]
[ws#2] <- ["release",20,1]
[ws#2] <- ["resolve",8,["undefined"]]
[ws#2] <- ["push",["pipeline",0,["echo"],["----readable as arg"]]]
[ws#2] <- ["pull",21]
[ws#2] -> ["resolve",21,"----readable as arg"]
[ws#2] <- ["resolve",9,["undefined"]]
[ws#2] <- ["resolve",10,["undefined"]]
[ws#2] <- ["resolve",11,["undefined"]]
[ws#2] -> ["release",7,1]
[ws#2] <- ["release",21,1]
[ws#2] <- ["pipe"]
[ws#2] <- ["push",["pipeline",0,["readAll"],[["readable",22]]]]
[ws#2] <- ["stream",["pipeline",22,["write"],["r0"]]]
[ws#2] <- ["pull",23]
[ws#2] <- ["stream",["pipeline",22,["write"],["r1"]]]
[ws#2] <- ["stream",["pipeline",22,["close"],[]]]
[ws#2] -> ["resolve",24,["undefined"]]
[ws#2] -> ["resolve",25,["undefined"]]
[ws#2] -> ["resolve",23,[["r0","r1"]]]
[ws#2] -> ["resolve",26,["undefined"]]
[ws#2] <- ["release",23,1]
[ws#2] <- ["release",22,1]
[ws#2] <- ["push",["pipeline",0,["echo"],["----writable as arg"]]]
[ws#2] <- ["pull",27]
[ws#2] -> ["resolve",27,"----writable as arg"]
[ws#2] <- ["release",27,1]
[ws#2] <- ["push",["pipeline",0,["writeTo"],[["writable",-3],2]]]
[ws#2] -> ["stream",["pipeline",-3,["write"],["chunk0"]]]
[ws#2] -> ["stream",["pipeline",-3,["write"],["chunk1"]]]
[ws#2] -> ["stream",["pipeline",-3,["close"],[]]]
[ws#2] <- ["pull",28]
[ws#2] <- ["resolve",12,["undefined"]]
[ws#2] <- ["resolve",13,["undefined"]]
[ws#2] <- ["resolve",14,["undefined"]]
[ws#2] -> ["release",-3,1]
[ws#2] -> ["resolve",28,2]
[ws#2] <- ["release",28,1]
[ws#2] <- ["push",["pipeline",0,["echo"],["----property of main"]]]
[ws#2] <- ["pull",29]
[ws#2] -> ["resolve",29,"----property of main"]
[ws#2] <- ["release",29,1]
[ws#2] <- ["push",["pipeline",0,["nope"]]]
[ws#2] <- ["pull",30]
[ws#2] -> ["resolve",30,["undefined"]]
[ws#2] <- ["release",30,1]
[ws#2] <- ["push",["pipeline",0,["echo"],["----end"]]]
[ws#2] <- ["pull",31]
[ws#2] -> ["resolve",31,"----end"]
[ws#2] <- ["release",31,1]
[ws#2] close 3000 RPC session was shut down by disposing the main stub
[ws#2] -> ["abort",["error","Error","Peer closed WebSocket: 3000 RPC session was shut down by disposing the main stub"]]
[ws#3] open /ws
[ws#3] <- ["push",["pipeline",0,["makeCounter"],[1]]]
[ws#3] <- ["push",["pipeline",0,["returnStub"],[["pipeline",1]]]]
[ws#3] <- ["pull",2]
[ws#3] -> ["resolve",2,["export",-1]]
[ws#3] <- ["release",2,1]
[ws#3] <- ["push",["pipeline",-1,["value"]]]
[ws#3] <- ["pull",3]
[ws#3] -> ["resolve",3,1]
[ws#3] <- ["release",3,1]
[ws#3] <- ["release",-1,1]
[ws#3] <- ["release",1,1]
[ws#3] <- ["push",["pipeline",0,["echo"],[{"t":["date",null],"e":["error","RangeError","r",null,{"code":7}],"big":["bigint","-5"],"u16":["bytes","AQACAQ","Uint16Array"],"ab":["bytes","/w","ArrayBuffer"],"url":["url","https://x.test/a?b=1"],"h":["headers",[["x-a","1"]]]}]]]
[ws#3] <- ["pull",4]
[ws#3] -> ["resolve",4,{"t":["date",null],"e":["error","RangeError","r",null,{"code":7}],"big":["bigint","-5"],"u16":["bytes","AQACAQ","Uint16Array"],"ab":["bytes","/w","ArrayBuffer"],"url":["url","https://x.test/a?b=1"],"h":["headers",[["x-a","1"]]]}]
[ws#3] <- ["release",4,1]
[ws#3] <- ["push",["pipeline",0,["getUser"],[5]]]
[ws#3] <- ["push",["pipeline",5,["profile"]]]
[ws#3] <- ["pull",6]
[ws#3] -> ["resolve",6,{"displayName":"User 5","id":5}]
[ws#3] <- ["release",6,1]
[ws#3] <- ["push",["pipeline",5,["getName"],[]]]
[ws#3] <- ["pull",7]
[ws#3] -> ["resolve",7,"User 5"]
[ws#3] <- ["release",7,1]
[ws#3] <- ["release",5,1]
[ws#3] close 3000 RPC session was shut down by disposing the main stub
[ws#3] -> ["abort",["error","Error","Peer closed WebSocket: 3000 RPC session was shut down by disposing the main stub"]]
"""#
}
