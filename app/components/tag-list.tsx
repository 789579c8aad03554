// Tags as small chips. As links (API page) they filter the directory; on cards they are plain text
// because the whole card is already a link.
import Link from "next/link";

const chip = "inline-flex items-center rounded-full border border-line bg-surface-subtle px-2.5 py-0.5 text-xs text-muted";

export function TagList({ tags, linked = false, className = "" }: { tags: string[]; linked?: boolean; className?: string }) {
  return (
    <ul className={`flex flex-wrap gap-1.5 ${className}`} aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag}>
          {linked ? (
            <Link href={`/directory?tag=${encodeURIComponent(tag.toLowerCase())}`} className={`${chip} hover:border-line-strong hover:text-foreground`}>
              {tag}
            </Link>
          ) : (
            <span className={chip}>{tag}</span>
          )}
        </li>
      ))}
    </ul>
  );
}
