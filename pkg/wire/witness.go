package wire

import "time"

// Ready is GET /readyz: ok, and on a registry with a witness policy what
// its witnesses answer (docs/operations.md, Witnesses). The witnesses never
// make a replica unready: publishing goes on without them.
type Ready struct {
	OK           bool          `json:"ok"`
	LogWitnesses *LogWitnesses `json:"log_witnesses,omitempty"`
}

// LogWitnesses is the state of the transparency log's witnesses.
type LogWitnesses struct {
	// CheckpointSize is the size of the log's latest signed checkpoint,
	// WitnessedSize that of the one served (cosigned by a quorum; -1 when
	// none is yet).
	CheckpointSize int64 `json:"checkpoint_size"`
	WitnessedSize  int64 `json:"witnessed_size"`
	// WitnessedAt is the newest time a quorum cosigned the one served;
	// null when none is served (or the quorum needs no witness).
	WitnessedAt *time.Time   `json:"witnessed_at"`
	Witnesses   []LogWitness `json:"witnesses"`
}

// LogWitness is one witness of the policy.
type LogWitness struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	// OK is false while it fails: FailingSince says since when, Error why.
	OK           bool       `json:"ok"`
	FailingSince *time.Time `json:"failing_since"`
	Error        string     `json:"error"`
	// CosignedSize is the latest size it is known to have cosigned.
	CosignedSize int64 `json:"cosigned_size"`
}
