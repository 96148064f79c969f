package completion

import (
	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
)

func NewCompletionCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the script that teaches your shell to complete pact's commands and
flags. Load it in the shell's start-up file.`,
		Example: `  # bash, in ~/.bashrc:
  $ eval "$(pact completion bash)"
  # zsh, in ~/.zshrc:
  $ eval "$(pact completion zsh)"
  # fish:
  $ pact completion fish > ~/.config/fish/completions/pact.fish
  # PowerShell:
  PS> pact completion powershell | Out-String | Invoke-Expression`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args:      cmdutil.UsageArgs(cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs)),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, out := cmd.Root(), f.IO.Out
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(out)
			}
		},
	}
}
