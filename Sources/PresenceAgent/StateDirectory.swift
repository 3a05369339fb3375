import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The agent's state directory (`/var/lib/presence-agent`): the last applied configuration, one
/// file per topic, so a restart without a broker resumes with the last good regions.
///
/// Writes are atomic (a temporary file, fsync, rename, fsync of the directory): a power cut leaves
/// the old file or the new one, never half of one. A file that cannot be read back as what we wrote
/// is moved aside (`regions.json.corrupt-<time>`), never overwritten blindly. A write that fails
/// (a full disk: `ENOSPC` from `write` or `fsync`) removes the temporary file and leaves the previous
/// file as it was.
public struct StateDirectory: Sendable {
    public let path: String
    /// The system calls a save goes through.
    public let systemCalls: SystemCalls

    public init(path: String, systemCalls: SystemCalls = .live) {
        self.path = path
        self.systemCalls = systemCalls
    }

    /// The calls that put a file's bytes on disk, as a seam: tests replace them to fail as a full
    /// disk does (set `errno`, return -1) without needing a full file system.
    public struct SystemCalls: Sendable {
        /// `write(2)`: bytes written, or -1 with `errno` set.
        public var write: @Sendable (_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int
        /// `fsync(2)`: 0, or -1 with `errno` set.
        public var fsync: @Sendable (_ descriptor: Int32) -> Int32

        public init(
            write: @escaping @Sendable (Int32, UnsafeRawPointer, Int) -> Int,
            fsync: @escaping @Sendable (Int32) -> Int32
        ) {
            self.write = write
            self.fsync = fsync
        }

        /// The kernel's.
        public static let live = SystemCalls(write: { Glibc.write($0, $1, $2) }, fsync: { Glibc.fsync($0) })
    }

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Creates the directory if needed; throws when it cannot be made or written.
    public func prepare() throws(Failure) {
        if mkdir(path, 0o750) != 0 && errno != EEXIST {
            throw Failure(description: "state directory \(path): cannot create it (\(String(cString: strerror(errno))))")
        }
        if access(path, W_OK) != 0 {
            throw Failure(description: "state directory \(path): not writable (\(String(cString: strerror(errno))))")
        }
    }

    /// Every known state file that exists, by name.
    public func load(_ names: [String]) -> (files: [String: [UInt8]], problems: [String]) {
        var files: [String: [UInt8]] = [:]
        var problems: [String] = []
        for name in names {
            let file = path + "/" + name
            guard access(file, F_OK) == 0 else { continue }
            guard let data = FileManager.default.contents(atPath: file) else {
                problems.append("\(file): cannot read it")
                continue
            }
            files[name] = Array(data)
        }
        return (files, problems)
    }

    /// Moves a file that no longer parses out of the way, keeping it for a person to look at.
    public func setAside(_ name: String, at time: Double) -> String? {
        let file = path + "/" + name
        let aside = file + ".corrupt-\(Int(time))"
        return rename(file, aside) == 0 ? aside : nil
    }

    /// Writes `contents` atomically, or removes the file for nil.
    public func write(_ name: String, contents: [UInt8]?) throws(Failure) {
        let file = path + "/" + name
        guard let contents else {
            if unlink(file) != 0 && errno != ENOENT {
                throw Failure(description: "\(file): cannot remove it (\(String(cString: strerror(errno))))")
            }
            return
        }
        let temporary = file + ".tmp"
        // Owner only: `beacons.json` holds the keys of phones and watches (docs/MQTT.md), the one
        // place they are kept. fchmod as well, for a temporary left by a crash with an older mode.
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0, fchmod(descriptor, 0o600) == 0 else {
            let error = errno
            if descriptor >= 0 { close(descriptor) }
            throw Failure(description: "\(file): cannot write it (\(String(cString: strerror(error))))")
        }
        var offset = 0
        while offset < contents.count {
            let written = contents.withUnsafeBytes { systemCalls.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(descriptor)
                unlink(temporary)
                throw Failure(description: "\(file): cannot write it (\(reason))")
            }
            offset += written
        }
        let synced = systemCalls.fsync(descriptor) == 0
        let syncReason = synced ? "" : String(cString: strerror(errno))
        close(descriptor)
        guard synced else {
            unlink(temporary)
            throw Failure(description: "\(file): cannot write it (\(syncReason))")
        }
        guard rename(temporary, file) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "\(file): cannot replace it (\(reason))")
        }
        let directory = open(path, O_RDONLY | O_DIRECTORY)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
