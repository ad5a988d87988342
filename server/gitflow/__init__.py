"""Git flow: the version-control service behind each project tab's Source Control panel."""
