import Foundation
import Testing
@testable import PresenceAgent

/// Saving on a full disk: the save fails with a message naming the file and the reason, the
/// temporary file is gone and the previous file is exactly as it was.
///
/// What is real and what is injected: `/dev/full` is the kernel's always-full device, so a write
/// to it fails with a real `ENOSPC`; the first two tests route the state directory's `write(2)` to
/// it through `StateDirectory.SystemCalls`. The fsync test injects `ENOSPC` itself (there is no
/// device whose fsync fails that way). No file system is actually filled.
@Suite struct StateDirectoryTests {
    static let old = Array(#"{"revision":7,"regions":[{"id":"office","uuid":"494e5445-4c4c-495f-524f-434b535f4857"}]}"#.utf8)
    static let new = Array(#"{"revision":8,"regions":[]}"#.utf8)

    /// A state directory of its own holding the previous good `regions.json`.
    func directoryWithOldFile(_ calls: StateDirectory.SystemCalls) throws -> StateDirectory {
        let path = NSTemporaryDirectory() + "state-\(UUID().uuidString)"
        let directory = StateDirectory(path: path, systemCalls: calls)
        try directory.prepare()
        try StateDirectory(path: path).write("regions.json", contents: Self.old)
        return directory
    }

    func expectUntouched(_ directory: StateDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let saved = try #require(FileManager.default.contents(atPath: directory.path + "/regions.json"), sourceLocation: sourceLocation)
        #expect(Array(saved) == Self.old, sourceLocation: sourceLocation)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names == ["regions.json"], "no temporary file is left behind", sourceLocation: sourceLocation)
    }

    /// Every `write(2)` goes to /dev/full: the kernel's ENOSPC.
    static let fullDevice = StateDirectory.SystemCalls(
        write: { _, bytes, count in
            let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
            guard full >= 0 else { return -1 }
            let written = Glibc.write(full, bytes, count)
            let saved = errno
            close(full)
            errno = saved
            return written
        },
        fsync: { Glibc.fsync($0) })

    @Test func aWriteOnAFullDiskFailsAndLeavesThePreviousFile() throws {
        let directory = try directoryWithOldFile(Self.fullDevice)
        let failure = #expect(throws: StateDirectory.Failure.self) { try directory.write("regions.json", contents: Self.new) }
        #expect(failure?.description == "\(directory.path)/regions.json: cannot write it (No space left on device)")
        try expectUntouched(directory)
    }

    /// The disk fills in the middle of a file: part of it was written, the rest fails.
    @Test func aDiskThatFillsHalfwayLeavesThePreviousFile() throws {
        let calls = StateDirectory.SystemCalls(
            write: { descriptor, bytes, count in
                // The first 10 bytes reach the temporary file, then the disk is full.
                var size = stat()
                guard fstat(descriptor, &size) == 0 else { return -1 }
                if size.st_size == 0 { return Glibc.write(descriptor, bytes, min(count, 10)) }
                return StateDirectoryTests.fullDevice.write(descriptor, bytes, count)
            },
            fsync: { Glibc.fsync($0) })
        let directory = try directoryWithOldFile(calls)
        let failure = #expect(throws: StateDirectory.Failure.self) { try directory.write("regions.json", contents: Self.new) }
        #expect(failure?.description.hasSuffix("cannot write it (No space left on device)") == true)
        try expectUntouched(directory)
    }

    /// Delayed allocation: the bytes were accepted, and the file system says ENOSPC at fsync.
    @Test func aFullDiskReportedAtFsyncLeavesThePreviousFile() throws {
        let calls = StateDirectory.SystemCalls(write: { Glibc.write($0, $1, $2) }, fsync: { _ in errno = ENOSPC; return -1 })
        let directory = try directoryWithOldFile(calls)
        let failure = #expect(throws: StateDirectory.Failure.self) { try directory.write("regions.json", contents: Self.new) }
        #expect(failure?.description == "\(directory.path)/regions.json: cannot write it (No space left on device)")
        try expectUntouched(directory)
    }

    /// With room on the disk again, the next save replaces the file.
    @Test func theNextSaveWithRoomSucceeds() throws {
        let directory = try directoryWithOldFile(Self.fullDevice)
        _ = try? directory.write("regions.json", contents: Self.new)
        try StateDirectory(path: directory.path).write("regions.json", contents: Self.new)
        #expect(FileManager.default.contents(atPath: directory.path + "/regions.json").map(Array.init) == Self.new)
    }
}
