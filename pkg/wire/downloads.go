package wire

// PackageDownloads is the answer of GET /api/packages/{owner}/{pack}/downloads.
type PackageDownloads struct {
	OK    bool  `json:"ok"`
	Total int64 `json:"total"`
	// Versions holds every version of the package, by its version string:
	// 0 for one never downloaded.
	Versions map[string]int64 `json:"versions"`
	// Days are the last 90 UTC days, oldest first, today last; a day
	// without downloads is there with 0.
	Days []DownloadDay `json:"days"`
}

// DownloadDay is the downloads of every version of a package on one UTC day.
type DownloadDay struct {
	Date  string `json:"date"` // 2006-01-02
	Count int64  `json:"count"`
}
