/// The settings of one decode call, held by every decoder it creates.
struct DecodingOptions {
    let dateStrategy: JSONValueDecoder.DateDecodingStrategy
    let dataStrategy: JSONValueDecoder.DataDecodingStrategy
    let keyStrategy: JSONValueDecoder.KeyDecodingStrategy
    let floatStrategy: JSONValueDecoder.NonConformingFloatDecodingStrategy
    let userInfo: [CodingUserInfoKey: Any]
    /// Whether object keys are matched as they are, which is the common case and skips
    /// conversion.
    let usesDefaultKeys: Bool

    init(_ decoder: JSONValueDecoder) {
        dateStrategy = decoder.dateDecodingStrategy
        dataStrategy = decoder.dataDecodingStrategy
        keyStrategy = decoder.keyDecodingStrategy
        floatStrategy = decoder.nonConformingFloatDecodingStrategy
        if decoder.userInfo.isEmpty {
            userInfo = [:]
        } else {
            var info: [CodingUserInfoKey: Any] = [:]
            for (key, value) in decoder.userInfo {
                info[key] = value
            }
            userInfo = info
        }
        if case .useDefaultKeys = decoder.keyDecodingStrategy {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
    }
}
