package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
)

// A setting is given by a flag, a PACTD_* environment variable or a key of
// the --config file (in that order of precedence, over the flag's default).
// Only flags are parsed by pflag; so that the other two sources obey exactly
// the same rules, each of their values is handed to the Set of the flag of
// the same name. Every setting is one of serve's flags; the other commands
// take the ones they have (--db) and leave the rest to serve, so one file
// and one environment serve them all.

const envPrefix = "PACTD_"

// settingNames are the keys a config file or the environment may set.
func settingNames() map[string]bool {
	f := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	new(serveConfig).flags(f)
	names := map[string]bool{}
	f.VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
	return names
}

func envName(key string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}

// origin is where a setting's value came from, to name it when the value
// is refused.
type origin struct {
	where string // "flag --rate-ip", "environment PACTD_RATE_IP", "config file pact.yaml: rate-ip"
	value string // as written there
}

// origins maps each of a command's flags to the origin of its value.
type origins map[string]origin

// settingError is a setting whose value makes no sense, found once all
// sources are applied; origins.explain names the source.
type settingError struct {
	key, problem string
}

func (e settingError) Error() string { return "--" + e.key + " " + e.problem }

func invalid(key, format string, args ...any) error {
	return settingError{key, fmt.Sprintf(format, args...)}
}

// explain turns a settingError into a usage error that names the source
// and the value; other errors pass through.
func (o origins) explain(err error) error {
	var bad settingError
	if !errors.As(err, &bad) {
		return err
	}
	from, ok := o[bad.key]
	if !ok {
		from = origin{where: "--" + bad.key}
	}
	return usageError{fmt.Errorf("%s: %q %s", from.where, from.value, bad.problem)}
}

// applySettings sets cmd's flags from the config file and the environment,
// below the flags given on the command line, and checks that every key and
// variable names a setting and every value parses as its flag's type.
// environ is os.Environ().
func applySettings(cmd *cobra.Command, environ []string) (origins, error) {
	flags := cmd.Flags()
	known := settingNames()
	from := origins{}
	// The command line wins, but the file's and environment's values are
	// still checked: they are applied too, then the command line's restored.
	type given struct {
		f     *pflag.Flag
		value string
		list  []string
	}
	var commandLine []given
	flags.VisitAll(func(f *pflag.Flag) {
		if !f.Changed {
			from[f.Name] = origin{"default of --" + f.Name, f.DefValue}
			return
		}
		g := given{f: f, value: f.Value.String()}
		if s, ok := f.Value.(pflag.SliceValue); ok {
			g.list = append([]string(nil), s.GetSlice()...)
			g.value = strings.Join(g.list, ",")
		}
		commandLine = append(commandLine, g)
		from[f.Name] = origin{"flag --" + f.Name, g.value}
	})

	env := map[string]string{}
	for _, kv := range environ {
		if name, value, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(name, envPrefix) {
			env[name] = value
		}
	}

	file := ""
	if f := flags.Lookup("config"); f != nil && f.Changed {
		file = f.Value.String()
	} else if v, ok := env[envPrefix+"CONFIG"]; ok {
		if v == "" {
			return nil, usageError{fmt.Errorf("environment %sCONFIG: is empty; unset it, or name a config file", envPrefix)}
		}
		file = v
	}
	if file != "" {
		entries, err := readConfigFile(file)
		if err != nil {
			return nil, usageError{fmt.Errorf("config file %s: %w", file, err)}
		}
		for _, e := range entries {
			where := fmt.Sprintf("config file %s: %s", file, e.key)
			switch {
			case e.key == "config":
				return nil, usageError{fmt.Errorf("config file %s: a config file cannot name another one (key \"config\")", file)}
			case !known[e.key]:
				return nil, usageError{fmt.Errorf("config file %s: unknown key %q%s", file, e.key, suggest(e.key, known, ""))}
			case e.problem != "":
				return nil, usageError{fmt.Errorf("%s: %s", where, e.problem)}
			}
			f := flags.Lookup(e.key)
			if f == nil {
				continue // a setting of serve, given to another command
			}
			if err := setFlag(f, e.value, e.list, e.isList); err != nil {
				return nil, usageError{fmt.Errorf("%s: %s", where, err)}
			}
			from[f.Name] = origin{where, e.value}
		}
	}

	names := make([]string, 0, len(env))
	for name := range env {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == envPrefix+"CONFIG" {
			continue
		}
		key := strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(name, envPrefix)), "_", "-")
		if !known[key] || envName(key) != name {
			return nil, usageError{fmt.Errorf("environment: unknown variable %s%s", name, suggest(key, known, envPrefix))}
		}
		f := flags.Lookup(key)
		if f == nil {
			continue
		}
		where := "environment " + name
		if err := setFlag(f, env[name], nil, false); err != nil {
			return nil, usageError{fmt.Errorf("%s: %s", where, err)}
		}
		from[f.Name] = origin{where, env[name]}
	}

	for _, g := range commandLine {
		var err error
		if s, ok := g.f.Value.(pflag.SliceValue); ok {
			err = s.Replace(g.list)
		} else {
			err = g.f.Value.Set(g.value)
		}
		if err != nil {
			return nil, fmt.Errorf("restoring --%s: %w", g.f.Name, err)
		}
	}
	return from, nil
}

// dbSetting applies the settings to an admin command and returns its --db.
func dbSetting(cmd *cobra.Command) (string, error) {
	if _, err := applySettings(cmd, os.Environ()); err != nil {
		return "", err
	}
	db, _ := cmd.Flags().GetString("db")
	if db == "" {
		return "", usageError{errors.New("--db is empty: give a SQLite file path or a postgres:// URL")}
	}
	return db, nil
}

// existingDBSetting is dbSetting for the commands that read or change a
// database, which never create one: opening a SQLite path creates the
// file, and a mistyped or forgotten --db would be served as an empty
// registry. Only serve and migrate (and restore, which fills a new
// database) make one.
func existingDBSetting(cmd *cobra.Command) (string, error) {
	db, err := dbSetting(cmd)
	if err != nil {
		return "", err
	}
	if path, ok := sqlitePath(db); ok {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return "", usageError{fmt.Errorf("no database at %s: pass --db or set PACTD_DB, or make a new one with pactd migrate", path)}
		}
	}
	return db, nil
}

// setFlag gives a value from the environment or a file to its flag. A list
// flag takes a list, or one comma-separated value as on the command line;
// it is replaced, not appended to, so a lower source never adds to a higher.
func setFlag(f *pflag.Flag, value string, list []string, isList bool) error {
	if s, ok := f.Value.(pflag.SliceValue); ok {
		if !isList {
			var err error
			if list, err = splitList(value); err != nil {
				return fmt.Errorf("%q is not a comma-separated list", value)
			}
		}
		if err := s.Replace(list); err != nil {
			return fmt.Errorf("%q %s", strings.Join(list, ","), typeProblem(f, err))
		}
		return nil
	}
	if isList {
		return fmt.Errorf("is a list, but --%s takes one value", f.Name)
	}
	if err := f.Value.Set(value); err != nil {
		return fmt.Errorf("%q %s", value, typeProblem(f, err))
	}
	return nil
}

// splitList reads "a,b" as the command line's list flags do.
func splitList(value string) ([]string, error) {
	if value == "" {
		return []string{}, nil
	}
	return csv.NewReader(strings.NewReader(value)).Read()
}

// typeProblem says what is wrong with a value its flag refused, in words
// (the parser's own error names Go functions).
func typeProblem(f *pflag.Flag, err error) string {
	if errors.Is(err, strconv.ErrRange) {
		return "is out of range"
	}
	switch f.Value.Type() {
	case "float64", "float32":
		return "is not a number"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "is not a whole number"
	case "duration":
		return "is not a duration such as 30s, 5m or 1h30m"
	case "bool":
		return "is not true or false"
	}
	return "is not valid"
}

// flagError rewords pflag's refusal of a command-line value like a refusal
// from any other source.
func flagError(err error) error {
	var bad *pflag.InvalidValueError
	if errors.As(err, &bad) {
		return fmt.Errorf("flag --%s: %q %s", bad.GetFlag().Name, bad.GetValue(), typeProblem(bad.GetFlag(), bad.Unwrap()))
	}
	return err
}

// suggest names the closest known setting to a mistyped one.
func suggest(key string, known map[string]bool, prefix string) string {
	best, bestDistance := "", 3
	for name := range known {
		if d := levenshtein.ComputeDistance(key, name); d < bestDistance || (d == bestDistance && best != "" && name < best) {
			best, bestDistance = name, d
		}
	}
	if best == "" {
		return ""
	}
	if prefix != "" {
		return fmt.Sprintf(" (did you mean %s?)", envName(best))
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// fileEntry is one key of a config file, with its value as written.
type fileEntry struct {
	key     string
	value   string
	list    []string
	isList  bool
	problem string // a value no flag could take: a mapping, nothing at all
}

// readConfigFile reads the settings of a YAML (or JSON, which YAML reads
// too) or TOML file, keeping every value as the text written, so that the
// flag parses exactly what a user would have typed.
func readConfigFile(path string) ([]fileEntry, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("no such file")
	}
	if err != nil {
		return nil, err
	}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".yaml", ".yml", ".json":
		return readYAML(data)
	case ".toml":
		return readTOML(data)
	default:
		return nil, fmt.Errorf("cannot tell its format from %q: name it .yaml, .yml, .json or .toml", ext)
	}
}

func readYAML(data []byte) ([]fileEntry, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML or JSON: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, nil // an empty file sets nothing
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("must hold settings as keys and values, such as \"addr: :8080\"")
	}
	var entries []fileEntry
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolveAlias(root.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: a key must be a setting's name", k.Line)
		}
		if seen[k.Value] {
			return nil, fmt.Errorf("%s: set twice (line %d)", k.Value, k.Line)
		}
		seen[k.Value] = true
		e := fileEntry{key: k.Value}
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			e.problem = "has no value"
		case v.Kind == yaml.ScalarNode:
			e.value = v.Value
		case v.Kind == yaml.SequenceNode:
			e.isList = true
			e.list = []string{}
			for _, item := range v.Content {
				item = resolveAlias(item)
				if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
					e.problem = "is a list of something other than values"
					break
				}
				e.list = append(e.list, item.Value)
			}
			e.value = strings.Join(e.list, ",")
		default:
			e.problem = "holds keys of its own, but a setting takes a value"
		}
		entries = append(entries, e)
	}
	return entries, nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func readTOML(data []byte) ([]fileEntry, error) {
	var m map[string]any
	d := toml.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(&m); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("not valid TOML: line %d, column %d: %s", row, col, strings.TrimPrefix(de.Error(), "toml: "))
		}
		return nil, fmt.Errorf("not valid TOML: %s", strings.TrimPrefix(err.Error(), "toml: "))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var entries []fileEntry
	for _, k := range keys {
		e := fileEntry{key: k}
		switch v := m[k].(type) {
		case []any:
			e.isList = true
			e.list = []string{}
			for _, item := range v {
				s, ok := tomlScalar(item)
				if !ok {
					e.problem = "is a list of something other than values"
					break
				}
				e.list = append(e.list, s)
			}
			e.value = strings.Join(e.list, ",")
		default:
			s, ok := tomlScalar(v)
			if !ok {
				e.problem = "holds keys of its own, but a setting takes a value"
			}
			e.value = s
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// tomlScalar writes a decoded TOML value back as text.
func tomlScalar(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case int64:
		return strconv.FormatInt(v, 10), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case bool:
		return strconv.FormatBool(v), true
	case map[string]any, []any:
		return "", false
	default:
		return fmt.Sprint(v), true // dates and times: no setting takes one, its flag says so
	}
}
