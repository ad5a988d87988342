"""CPU, memory and thread sampling of a run's whole process tree (psutil)."""

import psutil


class TreeSampler:
    """Samples a root process and all its descendants; keeps ``Process`` objects between samples
    because ``cpu_percent`` measures the time since the previous call on the same object."""

    def __init__(self, pid: int) -> None:
        self._root = psutil.Process(pid)
        self._known: dict[int, psutil.Process] = {pid: self._root}
        self._root.cpu_percent(None)

    def _tree(self) -> list[psutil.Process]:
        try:
            children = self._root.children(recursive=True)
        except psutil.Error:
            return []
        tree = [self._root]
        for child in children:
            known = self._known.setdefault(child.pid, child)
            tree.append(known)
        return tree

    def sample(self) -> tuple[float, int, int] | None:
        """(cpu percent, rss bytes, threads) summed over the tree, or None once it is gone."""
        cpu, rss, threads, alive = 0.0, 0, 0, 0
        for proc in self._tree():
            try:
                with proc.oneshot():
                    cpu += proc.cpu_percent(None)
                    rss += proc.memory_info().rss
                    threads += proc.num_threads()
                alive += 1
            except psutil.Error:
                self._known.pop(proc.pid, None)
        return (round(cpu, 1), rss, threads) if alive else None
