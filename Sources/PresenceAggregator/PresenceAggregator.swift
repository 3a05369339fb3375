// The aggregator service lands here (issue 5).
