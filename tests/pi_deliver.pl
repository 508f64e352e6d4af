#!/usr/bin/perl -w
# pi_deliver.pl [--new-epoch] NAME FILE|DIR...: adds each raw message FILE
# (or each file of DIR, in name order) to
# the public-inbox v2 inbox NAME of $PI_CONFIG, in one writer session,
# with public-inbox's own library (the code public-inbox-mda runs for each
# message: the same commits, trees and blobs, verified by
# tests/integration/pi_fixtures.sh, without its 0.4 s start-up per
# message).  Prints how many were added (a duplicate is not).
#
# --new-epoch: the first FILE starts the next epoch (git/N+1.git, a new
# root commit, all.git's alternates updated), as V2Writable does when an
# epoch reaches its size limit (rotate_bytes, about 1 GiB, no setting in
# public-inbox 1.9): the limit is 0 for that one message.
use strict;
use PublicInbox::Config;
use PublicInbox::InboxWritable;
use PublicInbox::Eml;
use PublicInbox::MDA;
my $new_epoch = 0;
if (@ARGV && $ARGV[0] eq '--new-epoch') { $new_epoch = 1; shift }
my $name = shift or die "usage: pi_deliver.pl [--new-epoch] NAME FILE...\n";
my $cfg = PublicInbox::Config->new;
my $ibx = $cfg->lookup_name($name) or die "no inbox $name in $ENV{PI_CONFIG}\n";
$ibx = PublicInbox::InboxWritable->new($ibx);
my $im = $ibx->importer(0);
die "$name is not a v2 inbox\n" unless exists $im->{rotate_bytes};
# A folder stands for its files, in name order.
my @files = map {
	-d $_ ? do { opendir(my $dh, $_) or die "$_: $!\n"; my $d = $_;
		map { "$d/$_" } sort grep { -f "$d/$_" } readdir($dh) } : $_
} @ARGV;
my $n = 0;
for my $f (@files) {
	open my $fh, '<', $f or die "$f: $!\n";
	my $raw = do { local $/; <$fh> };
	close $fh;
	my $eml = PublicInbox::Eml->new(\$raw);
	PublicInbox::MDA->set_list_headers($eml, $ibx);
	my $limit = $im->{rotate_bytes};
	$im->{rotate_bytes} = 0 if $new_epoch;
	$n++ if $im->add($eml);
	if ($new_epoch) { $im->{rotate_bytes} = $limit; $new_epoch = 0 }
}
$im->done;
print "$n\n";
