// The file tree's context menu is open to every feature: a feature registers what it adds for an
// entry (the model tools' Convert…, Lineage, Publish…, MNN-LLM…), and the tree shows them in
// their `order` after its own Open and Download, before Rename and Delete.
import type { FileEntry } from '../api/types';
import type { MenuItem } from '../ui/contextMenu';

export type FileMenuSource = (entry: FileEntry) => MenuItem[];

const sources: { order: number; items: FileMenuSource }[] = [];

export function registerFileMenuItems(order: number, items: FileMenuSource): void {
  sources.push({ order, items });
  sources.sort((a, b) => a.order - b.order);
}

/** What the features add to the menu of `entry`, in their order. */
export const fileMenuItems = (entry: FileEntry): MenuItem[] => sources.flatMap((source) => source.items(entry));
