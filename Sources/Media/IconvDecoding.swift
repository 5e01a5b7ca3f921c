import Basics
import Glibc

/// Multi-byte legacy encodings that feeds still declare (GB2312/GBK/GB18030, EUC-KR, Shift_JIS,
/// EUC-JP, Big5) through glibc's iconv: its conversion modules ship with libc6, so no tables of tens
/// of thousands of characters of our own and no new dependency. Invalid sequences become U+FFFD.
enum IconvDecoding {
    /// Declared label → the glibc name (WHATWG treats GB2312 as GBK and EUC-KR as windows-949).
    static let names: [String: String] = [
        "gb2312": "GBK", "gbk": "GBK", "x-gbk": "GBK", "euc-cn": "GBK", "csgb2312": "GBK", "gb18030": "GB18030",
        "euc-kr": "CP949", "ks_c_5601-1987": "CP949", "cp949": "CP949", "windows-949": "CP949",
        "shift_jis": "CP932", "shift-jis": "CP932", "sjis": "CP932", "x-sjis": "CP932", "windows-31j": "CP932",
        "ms_kanji": "CP932", "euc-jp": "EUC-JP", "big5": "BIG5-HKSCS", "big5-hkscs": "BIG5-HKSCS", "cn-big5": "BIG5-HKSCS"
    ]

    /// `bytes` as text when `label` names one of these encodings and iconv knows it; nil otherwise.
    static func decode(_ bytes: [UInt8], label: String) -> String? {
        guard let name = names[label.trimmed().lowercased()] else { return nil }
        let converter = iconv_open("UTF-8", name)
        guard let converter, converter != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var input = bytes.map { CChar(bitPattern: $0) }
        // A character of these encodings takes 1–4 bytes and at most 4 in UTF-8 (U+FFFD: 3 per byte).
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 16)
        var produced = 0
        input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                var inPointer = inputBuffer.baseAddress
                var inLeft = inputBuffer.count
                var outPointer = outputBuffer.baseAddress
                var outLeft = outputBuffer.count
                while inLeft > 0 {
                    if iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != -1 { break }
                    guard errno == EILSEQ || errno == EINVAL, outLeft >= 3 else { break }
                    // An invalid or truncated sequence: one replacement character, skip one byte.
                    for byte in [0xEF, 0xBF, 0xBD] as [UInt8] {
                        outPointer?.pointee = CChar(bitPattern: byte)
                        outPointer = outPointer?.successor()
                    }
                    outLeft -= 3
                    inPointer = inPointer?.successor()
                    inLeft -= 1
                }
                produced = outputBuffer.count - outLeft
            }
        }
        return String(decoding: output.prefix(produced).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
