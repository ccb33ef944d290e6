// Material's outdated-version script with its one fault fixed: it calls new URL(base_url)
// without a base, which throws for the relative base_url every page has (see the partial).
var el=document.querySelector("[data-md-component=outdated]"),base=new URL(document.currentScript.dataset.base,location),outdated=__md_get("__outdated",sessionStorage,base);!0===outdated&&el&&(el.hidden=!1)
