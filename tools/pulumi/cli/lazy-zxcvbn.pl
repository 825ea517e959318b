#!/usr/bin/env perl
# lazy-zxcvbn.pl <module folder>: makes a copy of a zxcvbn-go module (github.com/nbutton23/zxcvbn-go
# or its fork github.com/ccojocar/zxcvbn-go) load its word lists at first use instead of at start-up.
#
# Why: the Pulumi CLI links both (`pulumi config set` and `esc env set` use them to tell a value that
# looks like a secret), and their packages' init functions decode five word lists and build their
# dictionaries in every run of `pulumi`, whatever the command: 37 MB allocated, about 9,000 page
# faults, 0.41 -> 0.23 CPU s for `pulumi version` on this project's machine. Nothing else changes:
# `matching.Omnimatch`, the one function that reads the lists, loads them (once) before it matches,
# as it already did when they were missing. scripts/setup-pulumi.sh runs this on a copy of each
# module from Go's module cache (checked against tools/pulumi/cli/go.sum) and builds the CLI with
# the copies in place; it fails, naming the file, if a module no longer has the code patched here.
use strict;
use warnings;

my $dir = shift or die "usage: lazy-zxcvbn.pl <module folder>\n";

sub edit {
  my ($file, @substitutions) = @_;
  my $path = "$dir/$file";
  open(my $in, '<', $path) or die "lazy-zxcvbn: cannot read $path: $!\n";
  local $/;
  my $text = <$in>;
  close($in);
  while (@substitutions) {
    my ($pattern, $replacement) = splice(@substitutions, 0, 2);
    $text =~ s/$pattern/$replacement/ or die "lazy-zxcvbn: $path has no $pattern: the module changed, update this patch\n";
  }
  chmod(0644, $path);
  open(my $out, '>', $path) or die "lazy-zxcvbn: cannot write $path: $!\n";
  print $out $text;
  close($out);
}

# frequency: the lists are decoded by Load, once, instead of by init.
edit(
  'frequency/frequency.go',
  qr/\n\t"log"\n/ => qq~\n\t"log"\n\t"sync"\n~,
  qr/\nfunc init\(\) \{\n/ =>
    qq~\nvar loadOnce sync.Once\n\n// Load decodes the lists, once: at first use, not when the program starts.\nfunc Load() { loadOnce.Do(load) }\n\nfunc load() {\n~,
);

# matching: the dictionaries are built at the first match (Omnimatch), from the lists loaded then.
edit(
  'matching/matching.go',
  qr/\nimport \(\n\t"sort"\n/ => qq~\nimport (\n\t"sort"\n\t"sync"\n~,
  qr/\nfunc init\(\) \{\n\tloadFrequencyList\(\)\n\}\n/ => qq~\nvar loadOnce sync.Once\n~,
  qr/\n\tif dictionaryMatchers == nil \|\| adjacencyGraphs == nil \{\n\t\tloadFrequencyList\(\)\n\t\}\n/ =>
    qq~\n\tloadOnce.Do(loadFrequencyList)\n~,
  qr/\nfunc loadFrequencyList\(\) \{\n/ => qq~\nfunc loadFrequencyList() {\n\tfrequency.Load()\n~,
);
