// The directory search box: a plain GET form to /directory, so it works without JavaScript.
import { SearchIcon } from "./icons.tsx";

export type SearchFormProps = {
  defaultValue?: string;
  /** Current filters to keep when searching again (tag, sort). */
  keep?: Record<string, string | undefined>;
  size?: "default" | "large";
  /** Distinguishes the label when a page has more than one search form. */
  id?: string;
};

export function SearchForm({ defaultValue, keep = {}, size = "default", id = "directory-search" }: SearchFormProps) {
  const large = size === "large";
  return (
    <form action="/directory" method="get" role="search" className="w-full">
      <label htmlFor={id} className="sr-only">
        Search APIs
      </label>
      <div
        className={`flex items-center gap-2 rounded-xl border border-line-strong bg-surface shadow-sm focus-within:border-accent-ring focus-within:ring-2 focus-within:ring-accent-ring/30 ${
          large ? "p-1.5 pl-4" : "p-1 pl-3"
        }`}
      >
        <SearchIcon className="size-4 shrink-0 text-muted" />
        <input
          id={id}
          name="search"
          type="search"
          defaultValue={defaultValue}
          maxLength={200}
          placeholder="Search APIs"
          autoComplete="off"
          className={`min-w-0 flex-1 bg-transparent outline-none placeholder:text-muted/80 focus-visible:outline-none ${
            large ? "py-2 text-base" : "py-1.5 text-sm"
          }`}
        />
        {Object.entries(keep).map(([name, value]) => (value ? <input key={name} type="hidden" name={name} value={value} /> : null))}
        <button
          type="submit"
          className={`shrink-0 rounded-lg bg-foreground font-medium text-background transition-opacity hover:opacity-90 ${
            large ? "px-4 py-2 text-sm" : "px-3 py-1.5 text-sm"
          }`}
        >
          Search
        </button>
      </div>
    </form>
  );
}
