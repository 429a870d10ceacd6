// The page for a route the console does not have: says so instead of showing another page.
import { PageTitle } from '../bits.js';

/** The 404 page for `#/<parts…>`. */
export function NotFoundPage({ parts }: { parts: string[] }) {
  return (
    <>
      <PageTitle>Page not found</PageTitle>
      <section class="card" data-page="not-found">
        <p>There is no console page at #/{parts.join('/')}.</p>
        <p>
          <a href="#/run">Go to Run</a> or pick a page above.
        </p>
      </section>
    </>
  );
}
