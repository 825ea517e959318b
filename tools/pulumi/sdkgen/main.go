// Command edgeguard-sdkgen writes the Node.js, Python and Go SDKs of a Pulumi package from its
// schema, with the code generators of the pkg/v3 module the CLI is built from: what `pulumi
// package gen-sdk` does, which on this engine fails (it asks the v3.68 Node.js language host to
// generate code, and no Python or Go language host is to be had).
//
// Usage: edgeguard-sdkgen <schema.json> <out dir>. Each <out dir>/<language> is replaced whole, so
// a file the schema no longer produces does not linger.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodejsgen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	pythongen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const tool = "edgeguard-sdkgen"

// noPackages refuses every referenced package: the EdgeGuard schema refers to no other package, and
// a generator that would start plugins to load one must not run here.
type noPackages struct{}

func (noPackages) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %q; edgeguard-sdkgen loads no other package", name)
}

func (noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return noPackages{}.LoadPackage(d.Name, nil)
}

func (noPackages) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, fmt.Errorf("the schema refers to package %q; edgeguard-sdkgen loads no other package", name)
}

func (noPackages) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return noPackages{}.LoadPackageReference(d.Name, nil)
}

// bind reads and validates the schema; each generator binds its own copy, because generating
// records language details in the package.
func bind(path string) (*schema.Package, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(text, &spec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s: %s", path, diags.Error())
	}
	return pkg, nil
}

func write(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func run(schemaPath, out string) error {
	generators := map[string]func(*schema.Package) (map[string][]byte, error){
		"nodejs": func(pkg *schema.Package) (map[string][]byte, error) {
			return nodejsgen.GeneratePackage(tool, pkg, nil, nil, false, noPackages{})
		},
		"python": func(pkg *schema.Package) (map[string][]byte, error) {
			return pythongen.GeneratePackage(tool, pkg, nil, noPackages{})
		},
		"go": func(pkg *schema.Package) (map[string][]byte, error) {
			return gogen.GeneratePackage(tool, pkg, nil)
		},
	}
	for language, generate := range generators {
		pkg, err := bind(schemaPath)
		if err != nil {
			return err
		}
		files, err := generate(pkg)
		if err != nil {
			return fmt.Errorf("%s SDK: %w", language, err)
		}
		if err := write(filepath.Join(out, language), files); err != nil {
			return fmt.Errorf("%s SDK: %w", language, err)
		}
	}
	return nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: edgeguard-sdkgen <schema.json> <out dir>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "edgeguard-sdkgen:", err)
		os.Exit(1)
	}
}
