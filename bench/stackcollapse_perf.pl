#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
# Folds `perf script` output into one line per distinct stack, "comm;outer;...;leaf COUNT": the
# step perf users take to make a flame graph (the role of FlameGraph's stackcollapse-perf.pl,
# which Debian does not package; written here for bench/system.sh). Reads stdin, writes stdout.
# A record is a header line ("comm pid/tid [cpu] time: period event:") then one frame a line
# ("\taddr symbol+0xoff (dso)"), leaf first, then a blank line. Offsets are dropped; an unknown
# symbol becomes "[dso basename]"; counts are samples, not periods.
use strict;
use warnings;

my %count;
my ($comm, @frames);

sub flush_record {
	return unless defined $comm;
	my $key = join(';', $comm, reverse @frames);
	$count{$key}++;
	undef $comm;
	@frames = ();
}

while (my $line = <STDIN>) {
	chomp $line;
	if ($line eq '') {
		flush_record();
		next;
	}
	if ($line =~ /^\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$/) {
		next unless defined $comm;
		my ($sym, $dso) = ($1, $2);
		$sym =~ s/\+0x[0-9a-f]+$//;
		if ($sym eq '[unknown]' || $sym eq '') {
			my $base = $dso;
			$base =~ s{.*/}{};
			$sym = $base =~ /^\[/ ? $base : "[$base]";
		}
		$sym =~ tr/;/:/;
		push @frames, $sym;
		next;
	}
	if ($line =~ /^\S/) {
		flush_record();
		# comm may hold spaces: everything before the " PID/TID " or " PID " field
		if ($line =~ /^\s*(.+?)\s+(\d+)(?:\/\d+)?\s+(?:\[\d+\]\s+)?[\d.]+:/) {
			($comm = $1) =~ tr/;/:/;
		} else {
			($comm = (split ' ', $line)[0]) =~ tr/;/:/;
		}
	}
}
flush_record();
print "$_ $count{$_}\n" for sort keys %count;
