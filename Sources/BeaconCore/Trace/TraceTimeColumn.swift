/// The `time` column of a trace or truth file: a finite number of seconds, never going backwards
/// by more than `reorderTolerance`. A row up to that much earlier than the previous one (receivers'
/// clocks jitter by a millisecond; the recordings in data/ have such lines) is taken at the previous time and
/// counted; anything further back is an error naming the line.
package struct TraceTimeColumn: Sendable {
    package let reorderTolerance: Double
    package private(set) var reorderedLines = 0
    private var lastTime: Double?

    package init(reorderTolerance: Double) {
        self.reorderTolerance = reorderTolerance
    }

    /// The row's time, clamped as above. The row is only remembered once `accept` is called, after
    /// the rest of it has been checked.
    package mutating func time(_ text: Substring, line: Int) throws(TraceError) -> Double {
        guard var time = Double(text), time.isFinite else {
            throw TraceError(line: line, problem: "time '\(text)' is not a number")
        }
        if let lastTime, time < lastTime {
            guard lastTime - time <= reorderTolerance else {
                throw TraceError(line: line, problem: "time goes backwards (\(text) < \(lastTime))")
            }
            time = lastTime
            reorderedLines += 1
        }
        return time
    }

    package mutating func accept(_ time: Double) {
        lastTime = time
    }
}
