#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A whole file read into memory, refused past a size: the files the aggregator reads back (a site
/// model, the node calibration) are small, and a large one is not what it expects.
enum BoundedFile {
    enum ReadFailure: Error {
        /// It could not be opened: `errno` says why (`ENOENT`: there is none).
        case unopened(errno: Int32)
        case tooLarge
        case readError
    }

    static func read(path: String, maximumBytes: Int) throws(ReadFailure) -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw .unopened(errno: errno) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes += buffer[0..<count]
            if bytes.count > maximumBytes { throw .tooLarge }
            if count < buffer.count {
                if ferror(file) != 0 { throw .readError }
                return bytes
            }
        }
    }
}
