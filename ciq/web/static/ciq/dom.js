// One DOM helper for the session page's scripts (session.js, citations.js).
// el(tag, props, ...children): an element whose "text" prop is set with textContent
// (never as HTML), "className" as its class, any other prop as an attribute.
window.ciqEl = function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "text") node.textContent = value;
    else if (key === "className") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
};
