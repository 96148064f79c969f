package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// NoSubcommandArgs refuses an unknown command name given to a command
// that only groups others.
func NoSubcommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if suggestions := cmd.SuggestionsFor(args[0]); len(suggestions) > 0 {
		msg += "; did you mean " + strings.Join(suggestions, " or ") + "?"
	}
	return &UsageError{Msg: msg}
}

// UsageArgs makes an argument validator's complaints usage errors (exit 2).
func UsageArgs(validate cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := validate(cmd, args); err != nil {
			return &UsageError{Msg: err.Error()}
		}
		return nil
	}
}

// AddJSONFlag gives a command that prints data the --json switch.
func AddJSONFlag(cmd *cobra.Command, target *bool) {
	cmd.Flags().BoolVar(target, "json", false, "print JSON for scripts instead of a table")
}

// AddYesFlag gives a destructive command --yes.
func AddYesFlag(cmd *cobra.Command, target *bool) {
	cmd.Flags().BoolVarP(target, "yes", "y", false, "do not ask for confirmation (required without a terminal)")
}
